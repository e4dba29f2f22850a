#!/usr/bin/env node
// Node 22.1+ keeps V8's compiled code on disk and reuses it at the next start (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 has no enableCompileCache.
process.getBuiltinModule('node:module').enableCompileCache?.();
await import('../dist/cli-bundle/main.js');
