import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../domain/records.ts";
import { composePromptLayers, PROMPT_LAYERS, systemPromptOf, type ComposeInput } from "./prompt-composer.ts";

function input(session: Partial<ComposeInput["session"]> = {}, extra: Partial<ComposeInput> = {}): ComposeInput {
  const base: ComposeInput["session"] = {
    id: "bs_1",
    target: { type: "workflow", workflowId: "notes" },
    mode: "optimize",
    scope: { extra: [] },
    maxRepairRounds: 2,
    contextEnvelope: { targetLabel: 'workflow "notes"', targetRevision: 3, referencedAssetPaths: [] },
  };
  return {
    session: { ...base, ...session } as Pick<SessionRecord, "id" | "target" | "mode" | "scope" | "contextEnvelope" | "maxRepairRounds">,
    targetState: { exists: true, storedRevision: 3 },
    workingCopy: [],
    ...extra,
  };
}

describe("prompt composer", () => {
  it("builds the eight layers of seed 001 §7.1 in order, merged into one system message in that order", () => {
    const layers = composePromptLayers(input());
    expect(layers.map((l) => l.id)).toEqual([...PROMPT_LAYERS]);
    expect(layers.every((l) => l.text.trim().length > 0)).toBe(true);
    const text = systemPromptOf(layers);
    const at = layers.map((l) => text.indexOf(`## ${l.title}\n${l.text}`));
    expect(at.every((p) => p >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it("changes the persona and entry strategy with the target, and the mode strategy with the mode", () => {
    const workflow = composePromptLayers(input());
    const node = composePromptLayers(input({ target: { type: "node", workflowId: "notes", nodeId: "fill" } }));
    const agent = composePromptLayers(input({ target: { type: "agent", agentId: "writer" } }));
    const create = composePromptLayers(input({ mode: "create" }));
    const layer = (ls: typeof workflow, id: string) => ls.find((l) => l.id === id)!.text;
    expect(layer(node, "3-entry-strategy")).toContain("Change this node only");
    expect(layer(workflow, "3-entry-strategy")).not.toContain("Change this node only");
    expect(layer(agent, "0B-domain-persona")).toContain("deliberationWorkflowId");
    expect(layer(workflow, "0B-domain-persona")).toContain("core:workflow-input");
    expect(layer(create, "4-mode-strategy")).toMatch(/^Mode: create/);
    expect(layer(workflow, "4-mode-strategy")).toMatch(/^Mode: optimize/);
  });

  it("names referenced assets by path without their text, and carries the history summary and staged state in the digest", () => {
    const layers = composePromptLayers(
      input(
        { contextEnvelope: { targetLabel: "asset @project/a.md", targetRevision: "ab", referencedAssetPaths: ["@project/a.md", "@pkg/b.md"] } },
        {
          historySummary: 'Summary of 2 earlier turns of this session:\n- user "hi"',
          latestChangeSet: { id: "cs_9", version: 4, status: "rejected", summary: "loop", errorCount: 2 },
          workingCopy: [{ type: "workflow", key: "notes", deleted: false }],
        },
      ),
    );
    const digest = layers.find((l) => l.id === "5-context-digest")!.text;
    expect(digest).toContain("read them with builder_asset_read");
    expect(digest).toContain("@project/a.md, @pkg/b.md");
    expect(digest).toContain("Summary of 2 earlier turns");
    expect(digest).toContain("cs_9 (version 4, rejected, 2 validation errors)");
    expect(digest).toContain("workflow notes");
    expect(layers.find((l) => l.id === "6-apply-policy")!.text).toContain("AI_TOOL_FORBIDDEN");
  });

  it("mentions the repair rounds only when there are some", () => {
    const none = composePromptLayers(input({ maxRepairRounds: 0 })).find((l) => l.id === "2-output-contract")!.text;
    const two = composePromptLayers(input()).find((l) => l.id === "2-output-contract")!.text;
    expect(none).not.toContain("repair");
    expect(two).toContain("at most 2 times");
  });
});
