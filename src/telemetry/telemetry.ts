/**
 * The traces-and-metrics seam. The library speaks only this small interface; the one
 * implementation that records anything is `openTelemetry()` (open-telemetry.ts), which loads the
 * optional peer @opentelemetry/api. The default, `noTelemetry`, does nothing and allocates
 * nothing: a hot path that is not traced pays a few empty calls.
 *
 * telemetry/: this seam (spans, counters, histograms, a gauge; `traced`; a delivery's span kept
 * beside it with `attachTrace`/`traceOf`), open-telemetry.ts (bounds string attributes, drops
 * secret-looking names), traceparent.ts (the W3C traceparent a queued job carries, checked as
 * input) and run-links.ts (the deliveries a coalesced run links).
 */

/** Span and metric attributes: never a secret, token or body; strings are bounded by the recorder. */
export type TelemetryAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

export interface TelemetrySpan {
  setAttributes(attributes: TelemetryAttributes): void;
  /** Marks the span failed: the error's name and a bounded message (never its stack). */
  fail(error: unknown): void;
  end(): void;
  /** The W3C traceparent of this span, to carry it where context cannot go (a queued job). */
  traceparent(): string | undefined;
}

/** Counters (monotonic sums) and histograms the library records; see open-telemetry.ts for units. */
export type TelemetryCounter = 'ledgerhook.deliveries' | 'ledgerhook.sync.pages' | 'ledgerhook.sync.rate_limit.waits';
export type TelemetryHistogram = 'ledgerhook.sync.duration' | 'ledgerhook.sync.rate_limit.wait_duration';
export type TelemetryGauge = 'ledgerhook.queue.depth';

export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface Telemetry {
  /** False for `noTelemetry`: work done only to feed telemetry is skipped. */
  readonly enabled: boolean;
  /**
   * Starts a span: a child of this telemetry's parent (see `under`), else of the active context.
   * `links` tie it to other spans it also answers (deliveries coalesced into one sync run).
   */
  span(
    name: string,
    attributes?: TelemetryAttributes,
    links?: readonly TelemetrySpan[],
    kind?: SpanKind,
  ): TelemetrySpan;
  /**
   * The same recorder whose spans are children of `parent` (a span, or a W3C traceparent carried
   * in a job, already checked) and linked to `links`. Undefined parent: the recorder itself.
   */
  under(parent: TelemetrySpan | string | undefined, links?: readonly TelemetrySpan[]): Telemetry;
  add(counter: TelemetryCounter, value: number, attributes?: TelemetryAttributes): void;
  record(histogram: TelemetryHistogram, value: number, attributes?: TelemetryAttributes): void;
  /** Reports what `read` gives each time metrics are collected; returns the function that stops it. */
  observe(
    gauge: TelemetryGauge,
    read: () => Promise<ReadonlyArray<{ value: number; attributes?: TelemetryAttributes }>>,
  ): () => void;
  /** Pushes what the registered providers hold (before a CLI exits); bounded, never throws. */
  flush(): Promise<void>;
}

const NOOP_SPAN: TelemetrySpan = {
  setAttributes() {},
  fail() {},
  end() {},
  traceparent: () => undefined,
};

/** Records nothing, costs nothing: the default of every `telemetry` option. */
export const noTelemetry: Telemetry = {
  enabled: false,
  span: () => NOOP_SPAN,
  under() {
    return noTelemetry;
  },
  add() {},
  record() {},
  observe: () => () => {},
  flush: () => Promise.resolve(),
};

/**
 * Runs `work` inside a span that ends when it settles, failed if it throws. Untraced, `work` is
 * called as it is (no extra promise).
 */
export function traced<T>(
  telemetry: Telemetry,
  name: string,
  attributes: TelemetryAttributes | undefined,
  work: (span: TelemetrySpan) => Promise<T>,
  kind?: SpanKind,
): Promise<T> {
  if (!telemetry.enabled) return work(NOOP_SPAN);
  const span = telemetry.span(name, attributes, undefined, kind);
  return work(span).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    },
  );
}

/**
 * The span of each delivery received, beside it rather than in it (the delivery type stays as it
 * is, and is captured and sent to the inspector without it): what the sync run or the queued job a
 * delivery causes is a child of.
 */
const deliverySpans = new WeakMap<object, TelemetrySpan>();

export function attachTrace(delivery: object, span: TelemetrySpan): void {
  deliverySpans.set(delivery, span);
}

export function traceOf(delivery: object): TelemetrySpan | undefined {
  return deliverySpans.get(delivery);
}
