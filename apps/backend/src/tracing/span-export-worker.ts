/**
 * The thread `WorkerSpanProcessor` starts: it owns the SDK's OTLP/HTTP protobuf exporter, built from the process's
 * `OTEL_*` settings, and exports each batch of span records under the resource and scopes rebuilt here, answering
 * once the exporter called back.
 */
import { ExportResultCode, type InstrumentationScope } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { decodeSpans, type SpanBatch } from "./span-record.ts";
import type { ExportReply, ExportRequest } from "./worker-span-processor.ts";
import { runAtLowPriority } from "../background-thread.ts";

declare const self: Worker;

// On a busy machine the export can wait: the queue holds OTEL_BSP_MAX_QUEUE_SIZE spans meanwhile.
runAtLowPriority();

let exporter: OTLPTraceExporter | undefined;
let resource: Resource | undefined;
/** By the scope's parts: the exporter groups spans by scope object, so one scope is one object here too. */
const scopes = new Map<string, InstrumentationScope>();

function scopeOf(scope: InstrumentationScope): InstrumentationScope {
  const key = `${scope.name}@${scope.version ?? ""}:${scope.schemaUrl ?? ""}`;
  let known = scopes.get(key);
  if (!known) scopes.set(key, (known = scope));
  return known;
}

/** A thread's environment is the process's at its start: the settings as the process reads them now replace it. */
function useEnv(env: Record<string, string>): void {
  for (const name of Object.keys(process.env)) if (name.startsWith("OTEL_") && !(name in env)) delete process.env[name];
  Object.assign(process.env, env);
}

function exportBatch(id: number, batch: SpanBatch): void {
  if (!exporter || !resource) {
    reply({ id, ok: false, message: "the span export thread was not started" });
    return;
  }
  let spans;
  try {
    spans = decodeSpans(batch, resource, scopeOf);
  } catch (error) {
    reply({ id, ok: false, message: `a batch did not decode: ${error instanceof Error ? error.message : String(error)}` });
    return;
  }
  exporter.export(spans, (result) => {
    if (result.code === ExportResultCode.SUCCESS) reply({ id, ok: true });
    else reply({ id, ok: false, message: result.error?.message ?? "the OTLP export failed" });
  });
}

const reply = (answer: ExportReply) => self.postMessage(answer);

self.onmessage = (event: MessageEvent<ExportRequest>) => {
  const request = event.data;
  switch (request.kind) {
    case "start":
      useEnv(request.env);
      resource = resourceFromAttributes(request.resource);
      exporter = new OTLPTraceExporter();
      return;
    case "export":
      exportBatch(request.id, request.batch);
      return;
    case "shutdown":
      void (exporter?.shutdown() ?? Promise.resolve()).then(
        () => reply({ id: request.id, ok: true }),
        (error: unknown) => reply({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) }),
      );
      return;
    default: {
      const never: never = request;
      return never;
    }
  }
};
