import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkflowSchema } from "@weft/types";
import { createBuiltinRegistry } from "@weft/nodes";
import { ExecutionEngine } from "../engine/index.ts";
import { createFixture, type Fixture } from "./testing/fixture.ts";

/** The tool nodes, run by the real engine against a real tool host over temporary folders. */
let fx: Fixture;
let engine: ExecutionEngine;
beforeEach(() => {
  fx = createFixture({ limits: { maxReadBytes: 64 } });
  fx.put("project/notes.md", "---\nstepsCompleted: []\n---\n# Notes\nTODO: first\n");
  engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), services: { toolHost: fx.host } });
});
afterEach(() => fx.cleanup());

async function runTool(nodeType: string, params: Record<string, unknown>) {
  const result = await engine.run(engine.singleNodeWorkflow(nodeType, params), { runId: "run-nodes" });
  expect(result.status, JSON.stringify(result.error)).toBe("completed");
  return result.outputs;
}

describe("tool nodes", () => {
  it("fs:read gives the content, its digest and the whole result", async () => {
    const outputs = await runTool("fs:read", { path: "@project/notes.md", offset: 4 });
    expect(outputs).toMatchObject({ ok: true, content: "# Notes\nTODO: first\n", truncated: false, totalLines: 5, result: { ok: true, path: "@project/notes.md" } });
    expect(outputs.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("fs:read passes a truncated read on with its hint", async () => {
    fx.put("project/long.txt", "0123456789\n".repeat(20));
    const outputs = await runTool("fs:read", { path: "@project/long.txt" });
    expect(outputs).toMatchObject({ ok: true, truncated: true, content: "0123456789\n".repeat(5), result: { hint: expect.stringContaining('"offset":6') } });
  });

  it("a failed tool call is an output, not a node failure; the content port stays empty", async () => {
    const outputs = await runTool("fs:read", { path: "@project/missing.md" });
    expect(outputs).toEqual({ ok: false, result: { ok: false, error: expect.objectContaining({ code: "ENOENT" }) } });
  });

  it("fs:search, fs:list, fs:write, fs:apply-patch and shell:exec work end to end", async () => {
    expect(await runTool("fs:search", { pattern: "TODO", contextLines: 1 })).toMatchObject({ ok: true, truncated: false, matches: [{ path: "@project/notes.md", line: 5, before: ["# Notes"] }] });
    expect(await runTool("fs:list", { path: "@project/" })).toMatchObject({ ok: true, entries: ["notes.md"], items: [{ path: "notes.md", type: "file" }], truncated: false });
    const written = await runTool("fs:write", { path: "@state/plan.md", content: "plan\n" });
    expect(written).toMatchObject({ ok: true, bytesWritten: 5 });
    expect(readFileSync(join(fx.state, "run-nodes/plan.md"), "utf8")).toBe("plan\n");
    const read = await runTool("fs:read", { path: "@project/notes.md" });
    const patched = await runTool("fs:apply-patch", { path: "@project/notes.md", frontmatterUpdate: { stepsCompleted: { append: ["notes"] } }, ifMatchSha256: read.sha256 });
    expect(patched).toMatchObject({ ok: true });
    expect(readFileSync(join(fx.project, "notes.md"), "utf8")).toContain("stepsCompleted: [ notes ]");
    expect(await runTool("fs:apply-patch", { path: "@project/notes.md", patch: "<<<<<<< SEARCH\nTODO: first\n=======\nDONE: first\n>>>>>>> REPLACE" })).toMatchObject({ ok: true });
    expect(await runTool("shell:exec", { command: "grep -c DONE notes.md" })).toMatchObject({ ok: true, exitCode: 0, stdout: "1\n", stderr: "" });
    expect(await runTool("shell:exec", { command: "ls | sh" })).toMatchObject({ ok: false, result: { error: { code: "E_COMMAND_NOT_ALLOWED" } } });
  });

  it("parallel branches appending to one file lose nothing", async () => {
    const branches = 12;
    const workflow = WorkflowSchema.parse({
      id: "parallel-appends",
      name: "Parallel appends",
      nodes: Array.from({ length: branches }, (_, i) => ({
        id: `w${i}`,
        type: "fs:write",
        position: { x: 0, y: i * 100 },
        inputs: { path: "@project/log.txt", content: `branch ${i}\n`, mode: "append" },
      })),
    });
    const result = await engine.run(workflow, { runId: "parallel" });
    expect(result.status).toBe("completed");
    const lines = readFileSync(join(fx.project, "log.txt"), "utf8").trim().split("\n").sort();
    expect(lines).toEqual(Array.from({ length: branches }, (_, i) => `branch ${i}`).sort());
  });

  it("without a tool host the node fails with MISSING_SERVICE", async () => {
    const bare = new ExecutionEngine({ catalog: createBuiltinRegistry() });
    const result = await bare.run(bare.singleNodeWorkflow("fs:list", {}));
    expect(result.status).toBe("failed");
    expect(JSON.stringify(result)).toContain("MISSING_SERVICE");
  });
});
