import type { CliContext } from './context.js';

/**
 * --otel (or LEDGERHOOK_OTEL=1): the library's OpenTelemetry recorder over the providers registered
 * globally (a `node --import` setup file). Loaded only then: without it @opentelemetry/api is never
 * imported. Absent, the import fails with Node's ERR_MODULE_NOT_FOUND, which outcome.ts turns into
 * the one line naming the install command (util/optional-peer.ts).
 */
export async function resolveTelemetry(options: { otel?: true | undefined }, ctx: CliContext) {
  if (!options.otel && ctx.env.LEDGERHOOK_OTEL !== '1') return undefined;
  const { openTelemetry } = await import('../telemetry/open-telemetry.js');
  return openTelemetry();
}
