import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import type { RunEvent } from "@weft/types";
import { FileToolOutputStore } from "../conversation/index.ts";
import { DirectoryWorkflowSource, ExecutionEngine } from "../engine/index.ts";
import { ToolHost, withCallContext } from "../toolhost/index.ts";
import { ActionExecutor } from "./action-executor.ts";
import { WORKFLOWS_DIR } from "./testing/agent-harness.ts";

let base: string;
let executor: ActionExecutor;
let events: RunEvent[];
let host: ToolHost;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "weft-executor-"));
  for (const dir of ["project", "pkg", "state"]) mkdirSync(join(base, dir));
  const catalog = createBuiltinRegistry();
  const workflows = new DirectoryWorkflowSource(WORKFLOWS_DIR);
  executor = new ActionExecutor({ engine: new ExecutionEngine({ catalog, workflows }), catalog, workflows, outputStore: new FileToolOutputStore(join(base, "state", "s1")), observationChars: 200 });
  host = new ToolHost({ mounts: { project: join(base, "project"), pkg: join(base, "pkg"), state: join(base, "state") } });
  events = [];
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("ActionExecutor", () => {
  it("runs an atomic tool as a single-node workflow, settings going to the node's config", async () => {
    const outcome = await executor.execute(
      { toolId: "core:math", toolKind: "tool", toolName: "core_math", params: { a: 6, b: 7, op: "multiply" } },
      { runId: "run-math", onEvent: (e) => events.push(e) },
    );
    expect(outcome).toMatchObject({ status: "completed", ok: true, runId: "run-math", result: { result: 42 } });
    expect(outcome.observation).toBe('Observation: Tool `core_math` executed successfully. Result: {"result":42}');
    expect(events[0]).toMatchObject({ type: "run.started", runId: "run-math", workflowId: "single:core:math", streamId: "run-math", seq: 0 });
    // core:math completes within its call: one node.completed, carrying its type and inputs.
    expect(events.find((e) => e.type === "node.completed")).toMatchObject({ nodeType: "core:math", inputs: { a: 6, b: 7 }, outputs: { result: 42 } });
    expect(events.at(-1)).toMatchObject({ type: "run.completed", outputs: { result: 42 } });
  });

  it("runs a skill as its saved workflow with the parameters as interface inputs", async () => {
    const outcome = await executor.execute({ toolId: "summarize-skill", toolKind: "skill", toolName: "skill_summarize_skill", params: { text: "a b c d e", maxWords: 2 }, notes: ["a repair"] });
    expect(outcome).toMatchObject({ status: "completed", ok: true, result: { summary: "a b", words: 5 } });
    expect(outcome.observation).toContain("Note: a repair");
  });

  it("reports a failing node with its own code and message", async () => {
    const outcome = await executor.execute({ toolId: "core:math", toolKind: "tool", toolName: "core_math", params: { a: 1, b: 0, op: "divide" } });
    expect(outcome).toMatchObject({ status: "failed", ok: false, error: { code: "DIVISION_BY_ZERO" } });
    expect(outcome.observation).toMatch(/^Observation: Error - Tool `core_math` failed \[DIVISION_BY_ZERO\]: Cannot divide 1 by zero/);
  });

  it("treats a tool host failure result as a failed action, and a success as its ToolResult", async () => {
    const services = { toolHost: withCallContext(host, { sessionId: "s1" }) };
    const missing = await executor.execute({ toolId: "fs:read", toolKind: "tool", toolName: "fs_read", params: { path: "@project/none.txt" } }, { services });
    expect(missing).toMatchObject({ status: "completed", ok: false, error: { code: "ENOENT" } });
    expect(missing.observation).toContain("failed [ENOENT]");
    writeFileSync(join(base, "project", "a.txt"), "hi\n");
    const read = await executor.execute({ toolId: "fs:read", toolKind: "tool", toolName: "fs_read", params: { path: "@project/a.txt" } }, { services });
    expect(read).toMatchObject({ ok: true, result: { ok: true, path: "@project/a.txt", content: "hi\n", truncated: false } });
  });

  it("shows a large result as a preview and keeps the whole of it where the model can read it", async () => {
    const long = "word ".repeat(200).trim();
    const outcome = await executor.execute({ toolId: "core:text-transform", toolKind: "tool", toolName: "core_text_transform", params: { text: long, case: "upper" } }, { resultKey: "call_1" });
    expect(outcome.fullResultRef).toBe("@state/logs/tool-results/call_1.json");
    expect(outcome.observation).toContain("Result (first 200 of");
    expect(outcome.observation).toContain("The full result is kept at @state/logs/tool-results/call_1.json");
    const stored = readFileSync(join(base, "state", "s1", "logs", "tool-results", "call_1.json"), "utf8");
    expect(JSON.parse(stored)).toEqual({ text: long.toUpperCase() });
    // The same path through the tool host: the model can read it back with fs:read.
    const back = await host.call("fs.read", { path: outcome.fullResultRef! }, { sessionId: "s1" });
    expect(back).toMatchObject({ ok: true, content: stored });
  });

  it("fails cleanly when a skill's workflow is gone", async () => {
    const outcome = await executor.execute({ toolId: "vanished", toolKind: "skill", toolName: "skill_vanished", params: {} });
    expect(outcome).toMatchObject({ status: "failed", ok: false, error: { code: "SKILL_NOT_FOUND" } });
    expect(outcome.runId).toBeUndefined();
  });
});
