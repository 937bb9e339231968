import { describe, expect, it } from "vitest";
import { readTracingConfig, TracingConfigError } from "./tracing-config.ts";

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

describe("readTracingConfig: the OTEL_* environment", () => {
  it("is off by default, and off when disabled or exporter none even with an endpoint", () => {
    expect(readTracingConfig({}, "weft")).toBeUndefined();
    expect(readTracingConfig({ ...ENDPOINT, OTEL_SDK_DISABLED: "true" }, "weft")).toBeUndefined();
    expect(readTracingConfig({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "none" }, "weft")).toBeUndefined();
  });

  it("is on with an endpoint, a traces endpoint, or OTEL_TRACES_EXPORTER=otlp; contents only when asked", () => {
    expect(readTracingConfig(ENDPOINT, "weft")).toMatchObject({ serviceName: "weft", captureContent: false });
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://x/v1/traces", OTEL_SERVICE_NAME: "api" }, "weft")?.serviceName).toBe("api");
    expect(readTracingConfig({ OTEL_TRACES_EXPORTER: "otlp", WEFT_OTEL_CAPTURE_CONTENT: "true" }, "weft-worker")).toMatchObject({ serviceName: "weft-worker", captureContent: true });
  });

  it("holds a burst of spans while an export is under way: a queue of 8192 by default, 512 per request, both settable", () => {
    expect(readTracingConfig(ENDPOINT, "weft")).toMatchObject({ maxQueueSize: 8192, maxExportBatchSize: 512, contentMaxChars: 16_384 });
    expect(readTracingConfig({ ...ENDPOINT, OTEL_BSP_MAX_QUEUE_SIZE: "100" }, "weft")).toMatchObject({ maxQueueSize: 100, maxExportBatchSize: 100 });
    expect(readTracingConfig({ ...ENDPOINT, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64", WEFT_OTEL_CONTENT_MAX_CHARS: "1000" }, "weft")).toMatchObject({ maxExportBatchSize: 64, contentMaxChars: 1000 });
  });

  it("reads the span limits: the specification's defaults, the general attribute limits, the span-specific ones over them", () => {
    expect(readTracingConfig(ENDPOINT, "weft")?.spanLimits).toEqual({ attributeCountLimit: 128, attributeValueLengthLimit: Infinity, eventCountLimit: 128, linkCountLimit: 128 });
    const env = {
      ...ENDPOINT,
      OTEL_ATTRIBUTE_COUNT_LIMIT: "10",
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "200",
      OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "100",
      OTEL_SPAN_EVENT_COUNT_LIMIT: "5",
      OTEL_SPAN_LINK_COUNT_LIMIT: "2",
    };
    expect(readTracingConfig(env, "weft")?.spanLimits).toEqual({ attributeCountLimit: 10, attributeValueLengthLimit: 100, eventCountLimit: 5, linkCountLimit: 2 });
  });

  it("refuses what it cannot honour, naming the variable and what to set", () => {
    const bad: Record<string, string>[] = [
      { OTEL_TRACES_SAMPLER: "sometimes" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
      { OTEL_TRACES_EXPORTER: "zipkin" },
      { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      { WEFT_OTEL_CAPTURE_CONTENT: "yes please" },
      { OTEL_BSP_SCHEDULE_DELAY: "soon" },
      { OTEL_BSP_MAX_QUEUE_SIZE: "-1" },
      { OTEL_BSP_MAX_QUEUE_SIZE: "100", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "512" },
      { WEFT_OTEL_CONTENT_MAX_CHARS: "lots" },
      { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "short" },
      { OTEL_ATTRIBUTE_COUNT_LIMIT: "0" },
    ];
    for (const env of bad) {
      const name = Object.keys(env).at(-1) ?? "";
      let thrown: unknown;
      try {
        readTracingConfig({ ...ENDPOINT, ...env }, "weft");
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TracingConfigError);
      expect((thrown as TracingConfigError).code).toBe("INVALID_TRACING_CONFIG");
      expect((thrown as Error).message).toContain(name === "OTEL_EXPORTER_OTLP_PROTOCOL" ? "OTEL_EXPORTER_OTLP_PROTOCOL" : name);
    }
  });
});
