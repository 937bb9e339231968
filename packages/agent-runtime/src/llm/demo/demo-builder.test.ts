import { describe, expect, it } from "vitest";
import { offeredBuilderTools } from "./builder-turn.ts";
import { planBuilderStep } from "./demo-builder.ts";
import type { DemoMessage, DemoRequest } from "./demo-request.ts";

const tool = (name: string) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } });
const request = (names: string[], extra: Partial<DemoRequest> = {}): DemoRequest => ({ model: "weft-demo", messages: [{ role: "user", content: "hi" }], tools: names.map(tool), ...extra });

const workflow = { id: "w", name: "A", nodes: [{ id: "n", type: "core:const-text", config: { value: "x" } }], edges: [] };
const context = { ok: true, session_meta: { target: { type: "workflow", workflowId: "w" }, label: 'workflow "w"' }, target_snapshot: { exists: true, value: workflow } };

/** A conversation: the user's message, then each call the demo made with the result the server gave. */
function conversation(user: string, ...steps: [name: string, args: unknown, result: unknown][]): DemoMessage[] {
  const messages: DemoMessage[] = [
    { role: "system", content: "You are Weft's Builder AI." },
    { role: "user", content: user },
  ];
  steps.forEach(([name, args, result], i) => {
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name, arguments: JSON.stringify(args) } }] });
    messages.push({ role: "tool", tool_call_id: `c${i}`, content: JSON.stringify(result) });
  });
  return messages;
}

describe("the demo Builder plan", () => {
  it("is used only when the stage tool is offered and tools are not switched off", () => {
    expect(offeredBuilderTools(request(["read_file"]))).toBeUndefined();
    expect(offeredBuilderTools(request(["builder_context_get"]))).toBeUndefined();
    expect(offeredBuilderTools(request(["builder_change_stage"], { tool_choice: "none" }))).toBeUndefined();
    expect(Object.keys(offeredBuilderTools(request(["Builder.Change.Stage", "builder_context_get", "other"])) ?? {})).toEqual(["stage", "context"]);
  });

  it("reads the context, stages, and without a validate tool ends once staged", () => {
    const tools = offeredBuilderTools(request(["builder_context_get", "builder_change_stage"]))!;
    expect(planBuilderStep(conversation("Rename the workflow to B"), tools)).toEqual({ kind: "call", calls: [{ name: "builder_context_get", args: {} }] });
    const stage = planBuilderStep(conversation("Rename the workflow to B", ["builder_context_get", {}, context]), tools);
    expect(stage).toMatchObject({
      kind: "call",
      calls: [{ name: "builder_change_stage", args: { summary: 'Rename the workflow to "B"', operations: [{ op: "workflow.put", workflow: { id: "w", name: "B", nodes: [{ id: "n" }] } }] } }],
    });
    const args = stage.kind === "call" ? stage.calls[0].args : {};
    const done = planBuilderStep(conversation("Rename the workflow to B", ["builder_context_get", {}, context], ["builder_change_stage", args, { ok: true, changeSetId: "cs1" }]), tools);
    expect(done).toEqual({ kind: "say", text: 'I staged a change: Rename the workflow to "B". Review it in the preview and click Apply to save it.' });
  });

  it("reports a refused stage and does not try to repair an invalid change", () => {
    const tools = offeredBuilderTools(request(["builder_context_get", "builder_change_stage", "builder_change_validate"]))!;
    const refused = planBuilderStep(
      conversation(
        "rename the workflow to B",
        ["builder_context_get", {}, context],
        ["builder_change_stage", { summary: "Rename" }, { ok: false, error: { code: "AI_STAGE_REFUSED", message: "Nothing was staged." } }],
      ),
      tools,
    );
    expect(refused.kind === "say" && refused.text).toContain('I could not stage "Rename": Nothing was staged.');
    const repair = [
      ...conversation("rename the workflow to B"),
      { role: "assistant" as const, content: "Done." },
      { role: "user" as const, content: "[Builder validation] Change set cs1 did not pass validation" },
    ];
    const answer = planBuilderStep(repair, tools);
    expect(answer.kind === "say" && answer.text).toContain("I cannot repair this change myself");
  });

  it("refuses an operation the stage tool's schema does not list", () => {
    const names = ["builder_context_get", "builder_change_stage"];
    const offered = request(names);
    offered.tools![1].function.parameters = { type: "object", properties: { operations: { type: "array", items: { properties: { op: { enum: ["node.put"] } } } } } };
    const answer = planBuilderStep(conversation("rename the workflow to B", ["builder_context_get", {}, context]), offeredBuilderTools(offered)!);
    expect(answer.kind === "say" && answer.text).toContain('does not take "workflow.put" operations');
  });
});
