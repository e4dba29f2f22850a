/**
 * `ledgerhook/mock`: the service emulator. `MockService.handle` is a plain request → response
 * function (mount it anywhere); `startMockServer` serves it over node:http with webhooks and churn.
 */
export { startMockServer, type MockServerOptions, type RunningMockServer } from '../mock/mock-server.js';
export { MockService } from '../mock/mock-service.js';
export {
  MOCK_BASE_PATH,
  type MockServiceOptions,
  type MockRequest,
  type MockResponse,
  type MockFaults,
  type MutationSpec,
  type MutationResult,
  type ListEnvelope,
} from '../mock/mock-types.js';
export type { MockWebhookEvent } from '../mock/mock-webhooks.js';
export type { MockItem } from '../mock/entity-generators.js';
