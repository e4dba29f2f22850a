#!/usr/bin/env node
// Node 22.1+ keeps V8's compiled code of the CLI bundle on disk and reuses it at the next start; Node 20
// has no enableCompileCache and simply loads the bundle (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
// process.getBuiltinModule rather than `import 'node:module'`, whose namespace would load more of Node.
if (Number(process.versions.node.split('.')[0]) >= 22) process.getBuiltinModule('node:module').enableCompileCache?.();
await import('../dist/cli-bundle/main.js');
