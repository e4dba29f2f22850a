/**
 * What the CLI bundle takes of undici: `request` and `Agent`, the only two names ledgerhook's code
 * uses (test/unit/undici-lite.test.ts keeps that true). undici's index requires all of it up front
 * (fetch, WebSocket, cookies, which in turn wake Node's own copy of undici, the mock agents, the
 * caches): ~110 CommonJS files and ~60 ms of CPU on every network command's start. Bundled from
 * these three files instead, the CLI reads one chunk. The library in dist/ still imports undici
 * itself. `request` is undici's own `makeDispatcher(api.request)` (index.js, MIT), restated.
 */
import { setFlagsFromString } from 'node:v8';
import Agent from 'undici/lib/dispatcher/agent.js';
import { wasmTieringBudgetFlag } from './wasm-tiering.mjs';
import apiRequest from 'undici/lib/api/api-request.js';
import errors from 'undici/lib/core/errors.js';
import util from 'undici/lib/core/util.js';
import globalDispatcher from 'undici/lib/global.js';

// undici parses responses with llhttp compiled to WebAssembly. V8 first compiles a wasm function with
// its baseline compiler and hands it to its optimizing one once it has run for a budget (roughly bytes
// executed): 1.8M on Node 20, 13M on 22 and 24. llhttp's state machine spends that within one to five
// responses, and its optimizing compile costs ~140 ms of CPU, which the process also waits for at exit:
// a sync of one page took 0.29 s (0.31 s of CPU), 0.15-0.17 s without it. The parser is no measurable
// share of a long read (300 pages of 1000 items: 2.8-3.0 s with the baseline code, the optimized code
// or either budget), so the budget is raised to 1G: a command of a few dozen pages never pays for the
// compile, and a read of hundreds of pages still gets it. Set before the first connection compiles llhttp.
// A flag changed at run time changes V8's flag hash, which Node 22+'s compile cache checks: a module
// compiled after this line in one process and before it in another would be cached in turn and
// rejected. None is today (this chunk is the last a network command loads; no cache entry is rejected).
const budget = wasmTieringBudgetFlag();
if (budget !== undefined) setFlagsFromString(budget);

function request(url, opts, handler) {
  if (typeof opts === 'function') {
    handler = opts;
    opts = null;
  }
  if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL)))
    throw new errors.InvalidArgumentError('invalid url');
  if (opts != null && typeof opts !== 'object') throw new errors.InvalidArgumentError('invalid opts');
  if (opts?.path != null) {
    if (typeof opts.path !== 'string') throw new errors.InvalidArgumentError('invalid opts.path');
    const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
    url = new URL(util.parseOrigin(url).origin + path);
  } else {
    if (!opts) opts = typeof url === 'object' ? url : {};
    url = util.parseURL(url);
  }
  const { agent, dispatcher = globalDispatcher.getGlobalDispatcher() } = opts;
  if (agent) throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
  return apiRequest.call(
    dispatcher,
    {
      ...opts,
      origin: url.origin,
      path: url.search ? `${url.pathname}${url.search}` : url.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET'),
    },
    handler,
  );
}

export { Agent, request };
