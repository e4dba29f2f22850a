import type {
  Attributes,
  Context,
  Counter,
  Histogram,
  Link,
  Meter,
  ObservableGauge,
  Span,
  Tracer,
} from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from './traceparent.js';
import type {
  SpanKind,
  Telemetry,
  TelemetryAttributes,
  TelemetryCounter,
  TelemetryGauge,
  TelemetryHistogram,
  TelemetrySpan,
} from './telemetry.js';

type Api = typeof import('@opentelemetry/api');

export interface OpenTelemetryOptions {
  /** Default: the globally registered provider's tracer named `ledgerhook`. */
  tracer?: Tracer | undefined;
  /** Default: the globally registered provider's meter named `ledgerhook`. */
  meter?: Meter | undefined;
}

/** Network text (entity names, userIds, error messages) is cut to this many characters. */
export const MAX_ATTRIBUTE_LENGTH = 256;
/** An attribute whose name says it could hold one of these is dropped, whatever its value. */
const SECRET_NAME = /secret|token|authori[sz]ation|password|cookie|body/i;
const FLUSH_TIMEOUT_MS = 2000;

const COUNTERS: Record<TelemetryCounter, { unit: string; description: string }> = {
  'ledgerhook.deliveries': { unit: '{delivery}', description: 'Deliveries received, by verdict' },
  'ledgerhook.sync.pages': { unit: '{page}', description: 'List pages fetched by syncs' },
  'ledgerhook.sync.rate_limit.waits': { unit: '{wait}', description: "Waits on the service's 429 rate limit" },
};
const HISTOGRAMS: Record<TelemetryHistogram, { unit: string; description: string }> = {
  'ledgerhook.sync.duration': { unit: 's', description: 'Sync runs from start to commit (or failure)' },
  'ledgerhook.sync.rate_limit.wait_duration': { unit: 's', description: "Time waited on the service's 429s" },
};
const GAUGES: Record<TelemetryGauge, { unit: string; description: string }> = {
  'ledgerhook.queue.depth': { unit: '{job}', description: 'Sync jobs in the queue, by state' },
};

/** Attributes as recorded: secret-looking names dropped, strings bounded, undefined left out. */
export function safeAttributes(attributes: TelemetryAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (!attributes) return out;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    out[name] =
      typeof value === 'string' && value.length > MAX_ATTRIBUTE_LENGTH ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : value;
  }
  return out;
}

function errorText(error: unknown): { name: string; message: string } {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return { name: name.slice(0, 64), message: message.slice(0, MAX_ATTRIBUTE_LENGTH) };
}

class OtelSpan implements TelemetrySpan {
  constructor(
    readonly api: Api,
    readonly span: Span,
  ) {}

  setAttributes(attributes: TelemetryAttributes): void {
    this.span.setAttributes(safeAttributes(attributes));
  }

  fail(error: unknown): void {
    const { name, message } = errorText(error);
    // Only the name and the bounded message: a stack or a cause could quote a body or a header.
    this.span.addEvent('exception', { 'exception.type': name, 'exception.message': message });
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
  }

  end(): void {
    this.span.end();
  }

  traceparent(): string | undefined {
    const context = this.span.spanContext();
    return this.api.trace.isSpanContextValid(context) ? formatTraceparent(context) : undefined;
  }
}

interface Instruments {
  counters: Map<TelemetryCounter, Counter>;
  histograms: Map<TelemetryHistogram, Histogram>;
  gauges: Map<TelemetryGauge, ObservableGauge>;
}

function instruments(meter: Meter): Instruments {
  return {
    counters: new Map(
      Object.entries(COUNTERS).map(([name, options]) => [name as TelemetryCounter, meter.createCounter(name, options)]),
    ),
    histograms: new Map(
      Object.entries(HISTOGRAMS).map(([name, options]) => [
        name as TelemetryHistogram,
        meter.createHistogram(name, options),
      ]),
    ),
    gauges: new Map(
      Object.entries(GAUGES).map(([name, options]) => [
        name as TelemetryGauge,
        meter.createObservableGauge(name, options),
      ]),
    ),
  };
}

function spanKind(api: Api, kind: SpanKind | undefined) {
  const kinds = {
    internal: api.SpanKind.INTERNAL,
    server: api.SpanKind.SERVER,
    client: api.SpanKind.CLIENT,
    producer: api.SpanKind.PRODUCER,
    consumer: api.SpanKind.CONSUMER,
  };
  return kinds[kind ?? 'internal'];
}

/** Where a span starts: under the given parent, else under whatever context is active. */
function parentContext(api: Api, parent: TelemetrySpan | string | undefined): Context | undefined {
  if (parent instanceof OtelSpan) return api.trace.setSpan(api.ROOT_CONTEXT, parent.span);
  if (typeof parent === 'string') {
    const remote = parseTraceparent(parent);
    if (remote) return api.trace.setSpanContext(api.ROOT_CONTEXT, { ...remote, isRemote: true });
  }
  return undefined;
}

function linksOf(spans: readonly TelemetrySpan[]): Link[] {
  return spans.flatMap((span) => (span instanceof OtelSpan ? [{ context: span.span.spanContext() }] : []));
}

/** Calls each registered provider's forceFlush (SDK providers have one; the API's no-ops do not). */
async function flushProviders(api: Api): Promise<void> {
  type Flushable = { forceFlush?: () => Promise<void> };
  const traces = api.trace.getTracerProvider() as { getDelegate?: () => unknown } & Flushable;
  const providers = [traces.getDelegate?.() ?? traces, api.metrics.getMeterProvider()] as Flushable[];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
    timer.unref();
  });
  const flushed = Promise.all(providers.map((provider) => provider.forceFlush?.().catch(() => {})));
  await Promise.race([flushed, timeout]).finally(() => clearTimeout(timer));
}

function otelTelemetry(
  api: Api,
  tracer: Tracer,
  made: Instruments,
  parent: Context | undefined,
  scopeLinks: readonly TelemetrySpan[],
): Telemetry {
  const telemetry: Telemetry = {
    enabled: true,
    span(name, attributes, links = [], kind) {
      const all = scopeLinks.length === 0 ? links : [...scopeLinks, ...links];
      const span = tracer.startSpan(
        name,
        { attributes: safeAttributes(attributes), links: linksOf(all), kind: spanKind(api, kind) },
        parent ?? api.context.active(),
      );
      return new OtelSpan(api, span);
    },
    under(next, links = []) {
      if (next === undefined && links.length === 0) return telemetry;
      return otelTelemetry(api, tracer, made, parentContext(api, next) ?? parent, links);
    },
    add(counter, value, attributes) {
      made.counters.get(counter)?.add(value, safeAttributes(attributes));
    },
    record(histogram, value, attributes) {
      made.histograms.get(histogram)?.record(value, safeAttributes(attributes));
    },
    observe(gauge, read) {
      const instrument = made.gauges.get(gauge);
      if (!instrument) return () => {};
      const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
        const values = await read().catch(() => []);
        for (const { value, attributes } of values) result.observe(value, safeAttributes(attributes));
      };
      instrument.addCallback(callback);
      return () => instrument.removeCallback(callback);
    },
    flush: () => flushProviders(api),
  };
  return telemetry;
}

/**
 * Traces and metrics through OpenTelemetry: loads the optional peer @opentelemetry/api (rejects
 * with Node's ERR_MODULE_NOT_FOUND when it is not installed) and records through the given tracer
 * and meter, or the globally registered providers' (an SDK the application set up; ledgerhook
 * bundles none). Pass the result as the `telemetry` option of startListener, syncDataset,
 * createWebhookSync or startSyncWorker.
 */
export async function openTelemetry(options: OpenTelemetryOptions = {}): Promise<Telemetry> {
  const api = await import('@opentelemetry/api');
  const tracer = options.tracer ?? api.trace.getTracer('ledgerhook');
  const meter = options.meter ?? api.metrics.getMeter('ledgerhook');
  return otelTelemetry(api, tracer, instruments(meter), undefined, []);
}
