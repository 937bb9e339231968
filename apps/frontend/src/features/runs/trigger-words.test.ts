import { describe, expect, it } from "vitest";
import { triggerTitle } from "./trigger-words.ts";

describe("triggerTitle", () => {
  it("names the failed run for an error workflow's run, and the hook for a webhook's", () => {
    expect(triggerTitle({ kind: "error", runId: "run_1", at: 0 })).toBe("Started as the error workflow of the failed run run_1");
    expect(triggerTitle({ kind: "webhook", nodeId: "hook", path: "github/push", at: 0 })).toBe("Started by the webhook github/push");
  });
});
