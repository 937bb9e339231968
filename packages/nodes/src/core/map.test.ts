import { describe, expect, it } from "vitest";
import type { RunResult } from "@weft/types";
import { expectFailure, runNode } from "../testing/harness.ts";
import { coreMap } from "./map.ts";

// Through the real engine (sub-runs, caching, failures, cancellation): agent-runtime/src/engine/map.test.ts.
const done = (outputs: Record<string, unknown>): RunResult => ({ runId: "r", workflowId: "w", status: "completed", outputs, observations: [], startedAt: 0, durationMs: 0 });

describe("core:map", () => {
  it("needs exactly one of a skill and a node type", async () => {
    await expectFailure(runNode(coreMap, { items: [1] }, {}), "INVALID_CONFIG");
  });

  it("calls the runtime once per item with the item, the shared inputs and its index as label, and keeps item order", async () => {
    const calls: unknown[] = [];
    const outputs = await runNode(
      coreMap,
      { items: [3, 1, 2], inputs: { unit: "s" } },
      { workflowId: "wait", concurrency: 3 },
      {
        runSubworkflow: async (workflowId, inputs, options) => {
          calls.push({ workflowId, inputs, label: options?.label });
          await Bun.sleep(Number(inputs.item));
          return done({ waited: inputs.item });
        },
      },
    );
    expect(outputs).toEqual({ results: [{ waited: 3 }, { waited: 1 }, { waited: 2 }], errors: [] });
    expect(calls).toContainEqual({ workflowId: "wait", inputs: { unit: "s", item: 1 }, label: "1" });
  });
});
