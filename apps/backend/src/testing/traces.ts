import type { OtlpReceiver, ReceivedSpan } from "./otlp-receiver.ts";
import { until } from "./until.ts";

/** The spans a receiver holds, one line each (name, trace/span < parent), for a failure's message. */
export function spanLines(receiver: OtlpReceiver): string {
  return receiver
    .spans()
    .map((s) => `${s.name} (${s.traceId.slice(0, 6)}/${s.spanId.slice(0, 6)} < ${s.parentSpanId.slice(0, 6)})`)
    .join(", ");
}

/**
 * The spans of a run's trace once its `run <name>` span has arrived and the trace holds `expectedSpans`. `parentSpanId`
 * is the run span's parent: "" for a run that is a trace's root, a caller's span id for a run that joined its trace.
 */
export async function traceOf(receiver: OtlpReceiver, runId: string, expectedSpans: number, parentSpanId = ""): Promise<ReceivedSpan[]> {
  return until(
    `the trace of run ${runId}`,
    () => {
      const root = receiver.spans().find((s) => s.attributes["weft.run.id"] === runId && s.name.startsWith("run ") && s.parentSpanId === parentSpanId);
      if (!root) return undefined;
      const spans = receiver.spans().filter((s) => s.traceId === root.traceId);
      return spans.length >= expectedSpans ? spans : undefined;
    },
    90_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; spans received: ${spanLines(receiver)}`);
  });
}

/** The span named `name` among `spans`; a failure lists the names there are. */
export function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.find((s) => s.name === name);
  if (!found) throw new Error(`no span "${name}" among ${spans.map((s) => s.name).join(", ")}`);
  return found;
}
