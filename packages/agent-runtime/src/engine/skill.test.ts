import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workflow, WorkflowInput } from "@weft/types";
import { DirectoryWorkflowSource } from "./directory-workflow-source.ts";
import { ExecutionEngine } from "./execution-engine.ts";
import { createTestCatalog, eventLog } from "./testing/test-nodes.ts";

let dir: string;

function save(doc: WorkflowInput | Record<string, unknown>, file = `${String(doc.id)}.json`): void {
  writeFileSync(join(dir, file), JSON.stringify(doc, null, 2));
}

function skillNode(id: string, workflowId: string, inputs: string[], outputs: string[]) {
  return {
    id,
    type: "core:skill",
    config: { workflowId },
    ports: { inputs: inputs.map((p) => ({ id: p, type: "any" as const })), outputs: outputs.map((p) => ({ id: p, type: "any" as const })) },
  };
}

/** shout: text → upper → shout. */
const shoutSkill: WorkflowInput = {
  id: "shout",
  name: "Shout",
  nodes: [
    { id: "in", type: "core:workflow-input", config: { name: "text", portType: "string", required: true } },
    { id: "up", type: "test:upper" },
    { id: "out", type: "core:workflow-output", config: { name: "shout", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "in", sourceHandle: "value", target: "up", targetHandle: "text" },
    { id: "e2", source: "up", sourceHandle: "text", target: "out", targetHandle: "value" },
  ],
};

function checked(engine: ExecutionEngine, doc: unknown): Workflow {
  const result = engine.validate(doc);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.workflow;
}

function engineFor(): { engine: ExecutionEngine; probe: ReturnType<typeof createTestCatalog>["probe"] } {
  const { catalog, probe } = createTestCatalog();
  return { engine: new ExecutionEngine({ catalog, workflows: new DirectoryWorkflowSource(dir) }), probe };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "weft-skills-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("core:skill through ctx.runSubworkflow", () => {
  it("runs two instances of a skill inside the run, with namespaced node ids in events and observations", async () => {
    save(shoutSkill);
    const { engine } = engineFor();
    const main: WorkflowInput = {
      id: "main",
      name: "main",
      nodes: [
        { id: "hello", type: "test:const", config: { value: "hello" } },
        { id: "bye", type: "test:const", config: { value: "bye" } },
        skillNode("first", "shout", ["text"], ["shout"]),
        skillNode("second", "shout", ["text"], ["shout"]),
        { id: "join", type: "test:join", config: { separator: " " } },
      ],
      edges: [
        { id: "a", source: "hello", sourceHandle: "value", target: "first", targetHandle: "text" },
        { id: "b", source: "bye", sourceHandle: "value", target: "second", targetHandle: "text" },
        { id: "c", source: "first", sourceHandle: "shout", target: "join", targetHandle: "parts" },
        { id: "d", source: "second", sourceHandle: "shout", target: "join", targetHandle: "parts" },
      ],
    };
    const log = eventLog();
    const result = await engine.run(checked(engine, main), { onEvent: log.onEvent, runId: "r" });
    expect(result.status).toBe("completed");
    expect(result.observations.find((o) => o.nodeId === "join")?.outputs).toEqual({ text: "HELLO BYE" });
    const ids = result.observations.map((o) => o.nodeId);
    for (const inner of ["first/in", "first/up", "first/out", "second/in", "second/up", "second/out"]) expect(ids).toContain(inner);
    expect(new Set(result.observations.map((o) => o.invocationId)).size).toBe(result.observations.length);
    expect(result.observations.find((o) => o.nodeId === "second/up")?.outputs).toEqual({ text: "BYE" });
    // One event stream for the whole run: seq in order, inner node events under their namespaced ids.
    expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
    expect(log.ofType("node.completed").map((e) => e.nodeId)).toEqual(expect.arrayContaining(["first/up", "second/up", "first", "second"]));
    expect(log.ofType("run.started")).toHaveLength(1);
    expect(log.ofType("run.completed")).toHaveLength(1);
    // Inner nodes finish before the skill node that runs them.
    const seqOf = (id: string) => log.ofType("node.completed").find((e) => e.nodeId === id)!.seq;
    expect(seqOf("first/out")).toBeLessThan(seqOf("first"));
  });

  it("detects recursion through the call stack and names the chain", async () => {
    save({ id: "ping", name: "ping", nodes: [skillNode("call", "pong", [], [])] });
    save({ id: "pong", name: "pong", nodes: [skillNode("call", "ping", [], [])] });
    const { engine } = engineFor();
    const result = await engine.run(checked(engine, { id: "ping", name: "ping", nodes: [skillNode("call", "pong", [], [])] }));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("SKILL_RECURSION");
    expect(result.error?.message).toContain('"ping" → "pong" → "ping"');
    const innermost = result.observations.find((o) => o.nodeId === "call/call");
    expect(innermost?.error).toMatchObject({ code: "SKILL_RECURSION", details: { chain: ["ping", "pong", "ping"] } });
  });

  it("a skill calling itself is recursion too", async () => {
    save({ id: "self", name: "self", nodes: [skillNode("again", "self", [], [])] });
    const { engine } = engineFor();
    const result = await engine.run(checked(engine, { id: "top", name: "top", nodes: [skillNode("s", "self", [], [])] }));
    expect(result.error?.code).toBe("SKILL_RECURSION");
    expect(result.observations.find((o) => o.nodeId === "s/again")?.error?.message).toContain('"self" → "self"');
  });

  it("an unknown skill id is SKILL_NOT_FOUND; an invalid skill or bad skill inputs fail the skill node with their code", async () => {
    save({ ...shoutSkill, id: "broken", nodes: [...shoutSkill.nodes, { id: "oops", type: "test:nothing-like-this" }] });
    save(shoutSkill);
    const { engine } = engineFor();
    const main = checked(engine, {
      id: "main",
      name: "main",
      nodes: [
        { id: "n", type: "test:const", config: { value: 3 } },
        skillNode("missing", "no-such-skill", [], []),
        skillNode("invalid", "broken", [], []),
        skillNode("wrongInput", "shout", ["text"], ["shout"]),
      ],
      edges: [{ id: "e", source: "n", sourceHandle: "value", target: "wrongInput", targetHandle: "text" }],
    });
    const result = await engine.run(main);
    const errorOf = (id: string) => result.observations.find((o) => o.nodeId === id)?.error;
    expect(errorOf("missing")).toMatchObject({ code: "SKILL_NOT_FOUND", message: 'no saved workflow has the id "no-such-skill"' });
    expect(errorOf("invalid")).toMatchObject({ code: "INVALID_WORKFLOW", message: expect.stringContaining("test:nothing-like-this") });
    expect(errorOf("wrongInput")).toMatchObject({ code: "INVALID_INPUT", message: 'input "text" must be a string, got number' });
  });

  it("loads workflows from a folder by the id inside the file, and skips other JSON files", async () => {
    save(shoutSkill, "some-file-name.json");
    save({ id: "agent-1", persona: "not a workflow" }, "agent.json");
    save({ id: "bad-shape", name: "x", nodes: [{ id: "a b", type: "test:const" }] });
    const source = new DirectoryWorkflowSource(dir);
    expect(await source.ids()).toEqual(["bad-shape", "shout"]);
    expect((await source.getWorkflow("shout"))?.nodes).toHaveLength(3);
    expect(await source.getWorkflow("agent-1")).toBeUndefined();
    await expect(source.getWorkflow("bad-shape")).rejects.toThrow(/bad-shape\.json is not a valid workflow: nodes\.0\.id/);
    // An id that is nowhere may be in a file that is not JSON: say so rather than "not found".
    writeFileSync(join(dir, "notes.json"), "{ not json");
    const reread = new DirectoryWorkflowSource(dir);
    await expect(reread.getWorkflow("elsewhere")).rejects.toThrow(/not valid JSON and could not be read: notes\.json/);
    expect(await reread.getWorkflow("shout")).toBeDefined();
  });
});
