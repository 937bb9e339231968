import { describe, expect, it } from "vitest";
import type { PaneMessage } from "@weft/types";
import { changeSetStatusLabel, liveStatus, repairProblemCount, toolLabel } from "./builder-labels.ts";

const at = "2026-01-01T00:00:00Z";

describe("the conversation pane's words", () => {
  it("names tool calls by what they did, whichever way the name is spelled", () => {
    expect(toolLabel("builder_change_stage")).toBe("staged a change");
    expect(toolLabel("builder.change.apply")).toBe("tried to apply (only you can)");
    expect(toolLabel("something.else")).toBe("something.else");
  });

  it("says what the model is doing from the last entry of the running turn", () => {
    const running: PaneMessage = { id: "a", at, kind: "assistant", text: "", toolCalls: [{ callId: "1", name: "builder_change_validate", ok: null }] };
    const done: PaneMessage = { ...running, toolCalls: [{ callId: "1", name: "builder_change_stage", ok: true }] };
    expect(liveStatus([])).toBe("thinking");
    expect(liveStatus([running])).toBe("validating the change");
    expect(liveStatus([done])).toBe("staged a change; thinking");
    expect(liveStatus([{ id: "r", at, kind: "repair_request", text: "" }])).toBe("repairing the change it staged");
  });

  it("counts the problems of a repair request and labels change set states", () => {
    expect(repairProblemCount("[Builder validation] Change set cs_1 did not pass:\n- [CYCLE] a\n- [UNKNOWN_NODE_TYPE] b\nFix these problems")).toBe(2);
    expect(changeSetStatusLabel({ status: "rejected", statusReason: "invalid" })).toBe("invalid");
    expect(changeSetStatusLabel({ status: "rejected", statusReason: "discarded" })).toBe("discarded");
    expect(changeSetStatusLabel({ status: "validated", statusReason: null })).toBe("valid");
  });
});
