import root from "@opentelemetry/otlp-proto-exporter-base/build/src/generated/root.js";

/** One received span, ids in hex, attributes as plain values (ints as numbers). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
  /** The exporting process's `service.name`. */
  service: string;
}

export interface OtlpReceiver {
  /** The OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT): spans are posted to `<url>/v1/traces`. */
  url: string;
  spans(): ReceivedSpan[];
  /** Export requests received (accepted or not). */
  requests(): number;
  /** Requests refused: not protobuf, not decodable as an ExportTraceServiceRequest. */
  rejected(): string[];
  stop(): Promise<void>;
}

interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}
interface DecodedSpan {
  traceId: number[];
  spanId: number[];
  parentSpanId?: number[];
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface DecodedRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: DecodedSpan[] }[] }[];
}
/** The slice of protobufjs's generated static code (from opentelemetry-proto's trace_service.proto) used here. */
interface RequestType {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: { longs: NumberConstructor; enums: NumberConstructor; bytes: ArrayConstructor; arrays: boolean }): DecodedRequest;
}

const ExportTraceServiceRequest = (root as unknown as { opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: RequestType } } } } } }).opentelemetry.proto.collector.trace.v1
  .ExportTraceServiceRequest;

const hex = (bytes: number[] | undefined) => (bytes ?? []).map((b) => b.toString(16).padStart(2, "0")).join("");

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.kvlistValue) return attributes(value.kvlistValue.values);
  return undefined;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

/**
 * A real OTLP/HTTP trace receiver on a free loopback port: it decodes each export request with the protobuf
 * definitions of opentelemetry-proto (the OpenTelemetry JS project's generated code) and refuses, with 400, anything
 * that is not `application/x-protobuf` or does not decode, so a test sees only what a collector would accept.
 * `onSpan` hears of each span as it is decoded.
 */
export function startOtlpReceiver(options: { onSpan?: (span: ReceivedSpan) => void } = {}): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  let requests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      requests++;
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/traces") {
        rejected.push(`${req.method} ${path}`);
        return new Response("not found", { status: 404 });
      }
      if (req.headers.get("content-type") !== "application/x-protobuf") {
        rejected.push(`content-type ${req.headers.get("content-type")}`);
        return new Response("expected application/x-protobuf", { status: 415 });
      }
      let decoded: DecodedRequest;
      try {
        const message = ExportTraceServiceRequest.decode(new Uint8Array(await req.arrayBuffer()));
        decoded = ExportTraceServiceRequest.toObject(message, { longs: Number, enums: Number, bytes: Array, arrays: true });
      } catch (error) {
        rejected.push(`undecodable: ${error instanceof Error ? error.message : String(error)}`);
        return new Response("not an ExportTraceServiceRequest", { status: 400 });
      }
      for (const resourceSpans of decoded.resourceSpans ?? []) {
        const service = String(attributes(resourceSpans.resource?.attributes)["service.name"] ?? "");
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            if (span.traceId.length !== 16 || span.spanId.length !== 8) {
              rejected.push(`span "${span.name}" without valid ids`);
              continue;
            }
            const received: ReceivedSpan = {
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributes(span.attributes),
              events: (span.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
              status: { code: span.status?.code ?? 0, message: span.status?.message ?? "" },
              service,
            };
            spans.push(received);
            options.onSpan?.(received);
          }
        }
      }
      // An empty ExportTraceServiceResponse: full success.
      return new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans: () => [...spans],
    requests: () => requests,
    rejected: () => [...rejected],
    stop: async () => {
      await server.stop(true);
    },
  };
}
