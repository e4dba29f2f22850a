/**
 * `ledgerhook/mock`: the service emulator. `MockService.handle` is a plain request → response
 * function (mount it anywhere); `startMockServer` serves it over node:http with webhooks and churn.
 * `checkConsumer` drives a user's consumer from it and compares the consumer's store with its data.
 */
export { startMockServer, type MockServerOptions, type RunningMockServer } from '../mock/mock-server.js';
export { MockService } from '../mock/mock-service.js';
export type { AnswerGate, AnswerHold, ListAnswer } from '../mock/answer-gate.js';
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
export {
  checkConsumer,
  type CheckConsumerOptions,
  type CheckConsumerReport,
  type CheckConsumerEvent,
  type ConsumerCaseResult,
  type DeliverySender,
} from '../consumer-check/check-consumer.js';
export type { ConsumerCaseId } from '../consumer-check/consumer-case-table.js';
export type { DatasetDifference } from '../consumer-check/compare-datasets.js';
export { stateSource, type StateSource, type StateSourceOptions } from '../consumer-check/state-source.js';
export type { StateReader } from '../consumer-check/state-reader.js';
