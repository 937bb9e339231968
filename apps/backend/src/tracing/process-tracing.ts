import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { setLogContextFields, type Logger, type SecretRedactor } from "@weft/types";
import type { Tracing } from "@weft/agent-runtime";
import { readTracingConfig } from "./tracing-config.ts";
import { redactSpan } from "./redact-span.ts";
import { RecordingTracer } from "./recording-tracer.ts";
import { otelEnv, WorkerSpanProcessor } from "./worker-span-processor.ts";
import { contentRecorder } from "./span-content.ts";

/** A process's tracing: what the runtime traces with, and the flush at its end. */
export interface ProcessTracing {
  tracing: Tracing;
  /** Exports what is buffered; resolves once the export thread answered for every span ended before. */
  forceFlush(): Promise<void>;
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
 * with OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, each span passed through `redactor` first; the batches are encoded and
 * sent on a thread of their own (`WorkerSpanProcessor`), off the one that runs agents.
 * Throws `TracingConfigError` for a setting it cannot honour.
 */
export function startTracing(env: Record<string, string | undefined>, defaultServiceName: string, redactor: SecretRedactor, log: Logger): ProcessTracing | undefined {
  const config = readTracingConfig(env, defaultServiceName);
  if (!config) return undefined;
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (which wins) over this process's default name.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName }).merge(detectResources({ detectors: [envDetector] }));
  const processor = new WorkerSpanProcessor({
    maxQueueSize: config.maxQueueSize,
    maxExportBatchSize: config.maxExportBatchSize,
    scheduledDelayMillis: config.scheduledDelayMillis,
    // The exporter reads the process's environment, as the SDK's does where it runs on this thread.
    exporterEnv: otelEnv(process.env),
    resource: resource.attributes,
    log,
  });
  const tracer = new RecordingTracer(config.sampler, {
    resource,
    scope: { name: "weft" },
    limits: config.spanLimits,
    ended: (span) => {
      redactSpan(span, redactor);
      processor.onEnd(span);
    },
  });
  registerGlobals();
  log.info("tracing on: spans are exported over OTLP", { service: config.serviceName, captureContent: config.captureContent });
  const tracing: Tracing = {
    tracer,
    ...(config.captureContent ? { content: contentRecorder(redactor, config.contentMaxChars) } : {}),
  };
  return { tracing, forceFlush: () => processor.forceFlush(), shutdown: () => processor.shutdown() };
}
