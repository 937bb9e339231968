import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { setLogContextFields, type Logger, type SecretRedactor } from "@weft/types";
import type { Tracing } from "@weft/agent-runtime";
import { readTracingConfig } from "./tracing-config.ts";
import { RedactingSpanProcessor } from "./redacting-processor.ts";
import { DeferredExporter } from "./deferred-exporter.ts";
import { contentRecorder } from "./span-content.ts";
import { LeanTracer } from "./lean-tracer.ts";

/** A process's tracing: what the runtime traces with, and the flush at its end. */
export interface ProcessTracing {
  tracing: Tracing;
  /** Exports what is still buffered and stops; call last, after the runs ended. */
  shutdown(): Promise<void>;
}

let globalsRegistered = false;

/**
 * The process-wide parts, registered once: the context manager (AsyncLocalStorage: a node's LLM call or HTTP request
 * finds its span across awaits), the W3C `traceparent` propagator, and the active span's ids on every log line.
 */
function registerGlobals(): void {
  if (globalsRegistered) return;
  globalsRegistered = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  setLogContextFields(() => {
    const span = trace.getActiveSpan();
    if (!span) return undefined;
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  });
}

/**
 * Starts tracing when the `OTEL_*` environment asks for it (see `readTracingConfig`), else answers undefined and
 * nothing is registered. Spans go out in batches over OTLP/HTTP (protobuf) to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT,
 * with OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, each span passed through `redactor` first.
 * Throws `TracingConfigError` for a setting it cannot honour.
 */
export function startTracing(env: Record<string, string | undefined>, defaultServiceName: string, redactor: SecretRedactor, log: Logger): ProcessTracing | undefined {
  const config = readTracingConfig(env, defaultServiceName);
  if (!config) return undefined;
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (which wins) over this process's default name.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = new DeferredExporter(new OTLPTraceExporter());
  const provider = new TracerProvider({
    resource,
    sampler: config.sampler,
    spanProcessors: [
      new RedactingSpanProcessor(
        new BatchSpanProcessor({
          exporter,
          maxQueueSize: config.maxQueueSize,
          maxExportBatchSize: config.maxExportBatchSize,
          ...(config.scheduledDelayMillis !== undefined ? { scheduledDelayMillis: config.scheduledDelayMillis } : {}),
        }),
        redactor,
      ),
    ],
  });
  registerGlobals();
  log.info("tracing on: spans are exported over OTLP", { service: config.serviceName, captureContent: config.captureContent });
  const tracing: Tracing = {
    tracer: new LeanTracer(provider.getTracer("weft")),
    ...(config.captureContent ? { content: contentRecorder(redactor, config.contentMaxChars) } : {}),
  };
  return { tracing, shutdown: () => provider.shutdown() };
}
