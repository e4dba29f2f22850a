/**
 * `ledgerhook/telemetry`: traces and metrics. `openTelemetry()` loads the optional peer
 * @opentelemetry/api when called and records through the tracer and meter it is given (default: the
 * globally registered providers'); pass it as the `telemetry` option of startListener,
 * handleDelivery, syncDataset, createWebhookSync or startSyncWorker. The only entry whose types
 * name @opentelemetry/api.
 */
export { openTelemetry, type OpenTelemetryOptions } from '../telemetry/open-telemetry.js';
export {
  noTelemetry,
  type Telemetry,
  type TelemetrySpan,
  type TelemetryAttributes,
  type TelemetryCounter,
  type TelemetryHistogram,
  type TelemetryGauge,
  type SpanKind,
} from '../telemetry/telemetry.js';
