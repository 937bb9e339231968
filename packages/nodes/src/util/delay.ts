import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "aborted");
      reject(new NodeFailure("CANCELLED", `Delay of ${ms} ms was cancelled: ${reason}`, { ms }));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    if (signal.aborted) aborted();
    else signal.addEventListener("abort", aborted, { once: true });
  });
}

export const delay = defineNode(
  {
    type: "core:delay",
    title: "Delay",
    description: "Waits a number of milliseconds, then passes its value on unchanged. Stops at once when the run is cancelled.",
    category: "util",
    inputs: [
      { id: "value", type: "any", label: "Value", description: "Passed on after the wait (null when not given)." },
      { id: "ms", type: "integer", default: 1000, min: 0, max: 3_600_000, label: "Milliseconds", description: "How long to wait (up to one hour)." },
    ],
    outputs: [{ id: "value", type: "any", label: "Value", description: "The input value, after the wait." }],
    flags: { idempotent: false },
  },
  async (inputs, ctx) => {
    await wait(inputs.ms as number, ctx.signal);
    return { value: inputs.value ?? null };
  },
);
