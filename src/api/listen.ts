/**
 * `ledgerhook/listen`: the local receiver as a library (a pure `handleDelivery` and a node:http
 * listener around it), capture files, replay, and the tools that send deliveries to a receiver.
 */
export {
  startListener,
  type ListenerOptions,
  type ListenerEvent,
  type ListenerStats,
  type RunningListener,
} from '../listen/listener.js';
export {
  handleDelivery,
  type DeliveryRequest,
  type HandleDeliveryOptions,
  type HandledDelivery,
  type ForwardEdge,
} from '../listen/handle-delivery.js';
export { parseRouteFlag, parseRoutesConfig, routesFor, type Route, type Routing } from '../listen/routes.js';
export { parseSelector, parseSelectorList, matchesSelector, type RouteSelector } from '../listen/route-selector.js';
export { ForwardRetrier, type ForwardRetryOptions, type PendingForward } from '../listen/forward-retries.js';
export type { ForwardEvent, ListenerRetryOptions } from '../listen/listener.js';
export type { AttemptRecord, RouteStanding } from '../capture/attempt-record.js';
export { routeStandings } from '../capture/route-standings.js';
export type {
  ReceivedDelivery,
  RefusedRequest,
  DeliveryVerdict,
  ForwardResult,
  HeaderRecord,
} from '../delivery/received-delivery.js';
export { readCaptures, selectCaptures, type CaptureFile, type CaptureSelector } from '../capture/read-captures.js';
export { captureBody, type CaptureRecord, type CaptureVerdict } from '../capture/capture-record.js';
export {
  planReplay,
  replayDeliveries,
  type ReplayOptions,
  type ReplayPlan,
  type ReplayPolicy,
  type PlannedReplay,
} from '../replay/replay.js';
export {
  sendEditedDelivery,
  EDITED_FROM_HEADER,
  type EditedDelivery,
  type EditedDeliveryOptions,
} from '../replay/edited-delivery.js';
export { checkEditedBody, checkEditedHeaders, type EditCheck } from '../replay/edit-checks.js';
export { appendCaptureRecord } from '../capture/append-record.js';
export {
  checkReceiver,
  type CheckReceiverOptions,
  type CheckReceiverReport,
  type ReceiverCaseResult,
  type RejectMarker,
} from '../delivery/check-receiver.js';
export {
  sendDeliveries,
  type SendDeliveriesOptions,
  type SendSummary,
  type DeliveryOutcome,
  type SendProgressEvent,
} from '../delivery/send-deliveries.js';
export { buildSampleBody, type SampleBodyOptions } from '../samples/sample-body.js';
