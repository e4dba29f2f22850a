/**
 * An OpenTelemetry SDK in memory for the telemetry tests: spans in an InMemorySpanExporter (exported
 * as each ends), metrics collected on demand. Nothing is registered globally: the tests hand the
 * tracer and meter to openTelemetry().
 */
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '../../src/telemetry/open-telemetry.js';

/** Collects only when asked (no timer): `metrics()` reads what has been recorded so far. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export async function inMemoryTelemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new OnDemandReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = await openTelemetry({
    tracer: tracerProvider.getTracer('ledgerhook-test'),
    meter: meterProvider.getMeter('ledgerhook-test'),
  });
  return {
    telemetry,
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    async metrics(): Promise<Map<string, MetricData>> {
      const { resourceMetrics } = await reader.collect();
      const found = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics) found.set(metric.descriptor.name, metric);
      return found;
    },
    async close() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** The data points of a metric as [attributes, value] pairs, for assertions. */
export function points(metric: MetricData | undefined): Array<[Record<string, unknown>, unknown]> {
  return ((metric?.dataPoints ?? []) as Array<DataPoint<unknown>>).map((point) => [point.attributes, point.value]);
}
