import { describe, expect, it } from "vitest";
import { suspensionOf } from "@weft/types";
import { expectFailure, runNode } from "../testing/harness.ts";
import { coreApproval } from "./approval.ts";

// Pausing, resuming and deciding end to end: apps/backend/src/approvals/approvals-restart.test.ts (a real server).
describe("core:approval", () => {
  it("asks to pause the run with its question, the data to review, who may decide and the timeout's default", async () => {
    const out = await runNode(coreApproval, { data: { amount: 42 } }, { question: "Refund?", role: "owner", timeoutSeconds: 60, defaultDecision: "approved" });
    expect(suspensionOf(out)).toEqual({ question: "Refund?", data: { amount: 42 }, role: "owner", timeoutSeconds: 60, defaultDecision: "approved" });
    expect(Object.keys(out)).toEqual([]);
  });

  it("defaults to editors deciding, no timeout, and rejection as the default", async () => {
    expect(suspensionOf(await runNode(coreApproval, {}, { question: "Go?" }))).toEqual({ question: "Go?", data: null, role: "editor", defaultDecision: "rejected" });
  });

  it("refuses a missing question and an unknown role", async () => {
    await expectFailure(runNode(coreApproval, {}, {}), "INVALID_CONFIG");
    await expectFailure(runNode(coreApproval, {}, { question: "Go?", role: "viewer" }), "INVALID_CONFIG");
  });
});
