/**
 * `ledgerhook/listen`: the local receiver as a library (a pure `handleDelivery` and a node:http
 * listener around it, routes and retries), capture files and replaying them, and the tools that send
 * deliveries to a receiver and check how it answers.
 */
export {
  startListener,
  type ListenerOptions,
  type ListenerEvent,
  type ListenerStats,
  type ListenerRetryOptions,
  type ForwardEvent,
  type RunningListener,
} from '../listen/listener.js';
export {
  handleDelivery,
  type DeliveryRequest,
  type HandleDeliveryOptions,
  type HandledDelivery,
  type ForwardEdge,
} from '../listen/handle-delivery.js';
export { parseRoutesConfig, type Route } from '../listen/routes.js';
export type { RouteSelector } from '../listen/route-selector.js';
export type {
  ReceivedDelivery,
  RefusedRequest,
  DeliveryVerdict,
  ForwardResult,
  HeaderRecord,
} from '../delivery/received-delivery.js';
export { readCaptures, selectCaptures, type CaptureFile, type CaptureSelector } from '../capture/read-captures.js';
export type { CaptureRecord, CaptureVerdict } from '../capture/capture-record.js';
export type { AttemptRecord, RouteStanding } from '../capture/attempt-record.js';
export {
  planReplay,
  replayDeliveries,
  type ReplayOptions,
  type ReplayPlan,
  type PlannedReplay,
  type ReplayPolicy,
} from '../replay/replay.js';
export {
  checkReceiver,
  type CheckReceiverOptions,
  type CheckReceiverReport,
  type ReceiverCaseResult,
} from '../delivery/check-receiver.js';
export {
  sendDeliveries,
  type SendDeliveriesOptions,
  type SendSummary,
  type DeliveryOutcome,
  type SendProgressEvent,
} from '../delivery/send-deliveries.js';
export { buildSampleBody, type SampleBodyOptions } from '../samples/sample-body.js';
