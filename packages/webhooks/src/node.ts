/**
 * @ledgerhook/webhooks/node: Node's side of receiving webhooks. `createNodeMiddleware` for node:http,
 * Express and Connect, and the pieces it is built on that any node:http server can use: the body
 * reader (counted bytes, a limit, an optional budget shared by every connection) and the JSON answer.
 */
export {
  createNodeMiddleware,
  type NodeMiddleware,
  type NodeMiddlewareOptions,
} from './receiver/node-middleware.js';
export { readRequestBody, type BodyReadResult } from './node/read-body.js';
export { BodyBudget } from './node/body-budget.js';
export { sendJson } from './node/send-json.js';
