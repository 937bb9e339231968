import { describe, expect, it } from "vitest";
import { BuilderTargetSchema, isOpenChangeSet, ObjectLocatorSchema, targetObject } from "./index.ts";

describe("Builder targets", () => {
  it("locates the stored object a target lives in: a node in its workflow", () => {
    expect(targetObject({ type: "node", workflowId: "notes", nodeId: "fill" })).toEqual({ type: "workflow", id: "notes" });
    expect(targetObject({ type: "agent", agentId: "critic" })).toEqual({ type: "agent", id: "critic" });
    expect(targetObject({ type: "asset", path: "@project/prompts/intro.md" })).toEqual({ type: "asset", id: "@project/prompts/intro.md" });
  });

  it("refuses asset paths outside @project/ and @pkg/, blank ids and unknown fields", () => {
    expect(BuilderTargetSchema.safeParse({ type: "asset", path: "@pkg/core/readme.md" }).success).toBe(true);
    expect(BuilderTargetSchema.safeParse({ type: "asset", path: "prompts/intro.md" }).success).toBe(false);
    expect(BuilderTargetSchema.safeParse({ type: "workflow", workflowId: "  " }).success).toBe(false);
    expect(BuilderTargetSchema.safeParse({ type: "workflow", workflowId: "notes", nodeId: "fill" }).success).toBe(false);
    expect(ObjectLocatorSchema.safeParse({ type: "node", id: "fill" }).success).toBe(false);
  });
});

describe("open change sets", () => {
  it("are staged, validated or rejected as invalid, whether the reason is absent (stored) or null (API)", () => {
    expect(isOpenChangeSet({ status: "staged" })).toBe(true);
    expect(isOpenChangeSet({ status: "validated", statusReason: null })).toBe(true);
    expect(isOpenChangeSet({ status: "rejected", statusReason: "invalid" })).toBe(true);
    expect(isOpenChangeSet({ status: "rejected", statusReason: "discarded" })).toBe(false);
    expect(isOpenChangeSet({ status: "rejected", statusReason: null })).toBe(false);
    expect(isOpenChangeSet({ status: "applied" })).toBe(false);
    expect(isOpenChangeSet({ status: "superseded" })).toBe(false);
  });
});
