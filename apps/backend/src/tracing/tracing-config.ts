import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace";
import type { SpanLimits } from "./recorded-span.ts";

/** What the `OTEL_*` (and `WEFT_OTEL_*`) environment asks of tracing; the exporter reads its own variables (endpoint, headers, timeout). */
export interface TracingConfig {
  serviceName: string;
  sampler: Sampler;
  /** WEFT_OTEL_CAPTURE_CONTENT=true: prompts and completions on LLM spans (redacted). */
  captureContent: boolean;
  /** OTEL_BSP_SCHEDULE_DELAY: the most a finished span waits before it is exported (the SDK's default 5000 ms). */
  scheduledDelayMillis: number | undefined;
  /** OTEL_BSP_MAX_QUEUE_SIZE: finished spans held while an export is slow; beyond it new spans are dropped. */
  maxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per export request (at most maxQueueSize). */
  maxExportBatchSize: number;
  /** WEFT_OTEL_CONTENT_MAX_CHARS: the most text of prompts or completions one LLM span records (when captured). */
  contentMaxChars: number;
  /** OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT (or OTEL_ATTRIBUTE_COUNT_LIMIT), …_VALUE_LENGTH_LIMIT, OTEL_SPAN_EVENT_COUNT_LIMIT, OTEL_SPAN_LINK_COUNT_LIMIT. */
  spanLimits: SpanLimits;
}

/**
 * Four times the SDK's 2048: an agent step makes about a dozen spans and a scene runs several agents at once, so a
 * burst while one export is in flight must not drop spans. 512 per request, as the SDK does.
 */
const DEFAULT_MAX_QUEUE_SIZE = 8192;
const DEFAULT_MAX_EXPORT_BATCH_SIZE = 512;
const DEFAULT_CONTENT_MAX_CHARS = 16_384;

/** A setting the operator got wrong: the process refuses to start rather than trace differently than asked. */
export class TracingConfigError extends Error {
  readonly code = "INVALID_TRACING_CONFIG";
}

type Env = Record<string, string | undefined>;

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * Tracing is on when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT) or
 * OTEL_TRACES_EXPORTER names `otlp` (the exporter's default endpoint, http://localhost:4318); off when
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, and by default. Answers undefined when off.
 */
export function readTracingConfig(env: Env, defaultServiceName: string): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (exporters.includes("none")) return undefined;
  const unsupported = exporters.filter((name) => name !== "otlp");
  if (unsupported.length > 0) throw new TracingConfigError(`OTEL_TRACES_EXPORTER names "${unsupported.join(", ")}"; Weft exports traces over OTLP only: set it to otlp (or none)`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (set(protocol) && protocol.trim() !== "http/protobuf") {
    throw new TracingConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}"; Weft sends OTLP over HTTP with protobuf: set it to http/protobuf or leave it unset`);
  }
  const wanted = exporters.includes("otlp") || set(env.OTEL_EXPORTER_OTLP_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!wanted) return undefined;
  return {
    serviceName: set(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME.trim() : defaultServiceName,
    sampler: readSampler(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    captureContent: readFlag(env.WEFT_OTEL_CAPTURE_CONTENT, "WEFT_OTEL_CAPTURE_CONTENT"),
    scheduledDelayMillis: readDelay(env.OTEL_BSP_SCHEDULE_DELAY),
    ...readBatch(env),
    contentMaxChars: readCount(env.WEFT_OTEL_CONTENT_MAX_CHARS, "WEFT_OTEL_CONTENT_MAX_CHARS", DEFAULT_CONTENT_MAX_CHARS),
    spanLimits: readSpanLimits(env),
  };
}

/** The specification's span limits and defaults (128 of each; no value length limit); the span-specific name wins. */
function readSpanLimits(env: Env): SpanLimits {
  const limit = (name: string, general: string | undefined, fallback: number) => {
    const chosen = set(env[name]) ? name : general !== undefined && set(env[general]) ? general : undefined;
    return chosen === undefined ? fallback : readCount(env[chosen], chosen, 128);
  };
  return {
    attributeCountLimit: limit("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT", 128),
    attributeValueLengthLimit: limit("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", Infinity),
    eventCountLimit: limit("OTEL_SPAN_EVENT_COUNT_LIMIT", undefined, 128),
    linkCountLimit: limit("OTEL_SPAN_LINK_COUNT_LIMIT", undefined, 128),
  };
}

function readCount(value: string | undefined, name: string, fallback: number): number {
  if (!set(value)) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new TracingConfigError(`${name} is "${value}"; set it to a whole number above 0, e.g. ${fallback}`);
  return n;
}

function readBatch(env: Env): { maxQueueSize: number; maxExportBatchSize: number } {
  const maxQueueSize = readCount(env.OTEL_BSP_MAX_QUEUE_SIZE, "OTEL_BSP_MAX_QUEUE_SIZE", DEFAULT_MAX_QUEUE_SIZE);
  const maxExportBatchSize = readCount(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", Math.min(DEFAULT_MAX_EXPORT_BATCH_SIZE, maxQueueSize));
  if (maxExportBatchSize > maxQueueSize) {
    throw new TracingConfigError(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) is above OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize}); a batch is taken from the queue: lower it or raise the queue`,
    );
  }
  return { maxQueueSize, maxExportBatchSize };
}

function readFlag(value: string | undefined, name: string): boolean {
  if (!set(value)) return false;
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new TracingConfigError(`${name} is "${value}"; set it to true or false`);
}

function readDelay(value: string | undefined): number | undefined {
  if (!set(value)) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new TracingConfigError(`OTEL_BSP_SCHEDULE_DELAY is "${value}"; set it to a whole number of milliseconds, e.g. 5000`);
  return ms;
}

function readRatio(arg: string | undefined): number {
  if (!set(arg)) return 1;
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new TracingConfigError(`OTEL_TRACES_SAMPLER_ARG is "${arg}"; a ratio sampler takes a number from 0 to 1, e.g. 0.25`);
  return ratio;
}

/** The specification's samplers (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/); default parentbased_always_on. */
function readSampler(name: string | undefined, arg: string | undefined): Sampler {
  const chosen = set(name) ? name.trim().toLowerCase() : "parentbased_always_on";
  switch (chosen) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(readRatio(arg));
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(readRatio(arg)) });
    default:
      throw new TracingConfigError(
        `OTEL_TRACES_SAMPLER is "${name}"; use always_on, always_off, traceidratio, parentbased_always_on (the default), parentbased_always_off or parentbased_traceidratio`,
      );
  }
}
