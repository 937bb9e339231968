import { mkdtempSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// tests/ is not a workspace package: the shared contract is imported by path.
import { AgentStepTraceSchema } from "../../packages/types/src/index.ts";
import { ROOT, weftAgent } from "./support/weft-agent.ts";

let project: string;
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "weft-cli-agent-"));
  writeFileSync(join(project, "notes.txt"), "remember the milk\n");
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("weft agent (a real process, the demo LLM started in-process)", () => {
  it("runs the <ACTION> example agent: it calls the summarize skill, then answers from the observation", async () => {
    const run = await weftAgent(["text-helper", "--project", project, "--message", 'Summarize "Weft is a visual node-graph workflow editor and agent runtime written in TypeScript" with maxWords: 4']);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("agent text-helper (action-xml)");
    expect(run.stdout).toContain("step 1 · LLM");
    expect(run.stdout).toContain("<skill_summarize_skill>");
    expect(run.stdout).toContain('step 1 · action summarize-skill {"text":"Weft is a visual node-graph workflow editor and agent runtime written in TypeScript","maxWords":4}');
    expect(run.stdout).toContain('Observation: Tool `skill_summarize_skill` executed successfully. Result: {"words":13,"summary":"Weft is a visual"}');
    expect(run.stdout).toMatch(/\nanswer: Here is what I found .*Weft is a visual/);
  });

  it("answers the README's example requests right with the demo LLM, in both protocols", async () => {
    for (const agent of ["text-helper", "calculator"]) {
      const multiply = await weftAgent([agent, "--json", "--project", project, "--message", "multiply a: 6 by b: 7"]);
      expect(multiply.code).toBe(0);
      const product = JSON.parse(multiply.stdout) as { status: string; text: string; steps: Array<{ actions: Array<{ parse: unknown }> }> };
      expect(product.steps[0]!.actions[0]!.parse).toMatchObject({ kind: "call", toolId: "core:math", params: { a: 6, b: 7, op: "multiply" } });
      expect(product.text).toContain('{"result":42}');

      const upper = await weftAgent([agent, "--json", "--project", project, "--message", "upper case: hello from the weft"]);
      expect(upper.code).toBe(0);
      const shouted = JSON.parse(upper.stdout) as { status: string; text: string };
      expect(shouted.status).toBe("completed");
      expect(shouted.text).toContain("HELLO FROM THE WEFT");
    }
  });

  it("runs the native tool-call example agent from its file and prints the whole result with --json", async () => {
    const run = await weftAgent([join(ROOT, "workflows/agents/calculator.json"), "--json", "--project", project, "--message", "Use math to multiply a: 6 by b: 7"]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { status: string; text: string; steps: unknown[] };
    expect(result.status).toBe("completed");
    expect(result.text).toContain('"result":42');
    const steps = result.steps.map((s) => AgentStepTraceSchema.parse(s));
    expect(steps.map((s) => s.protocol)).toEqual(["openai-tools", "openai-tools"]);
    expect(steps[0]!.output.toolCalls.map((c) => c.function.name)).toEqual(["core_math"]);
    expect(steps[0]!.actions[0]).toMatchObject({ status: "completed", parse: { kind: "call", toolId: "core:math", params: { a: 6, b: 7, op: "multiply" } } });
  });

  it("lets the native agent use the file tools inside the project folder", async () => {
    const run = await weftAgent(["calculator", "--project", project, "--message", "List the files in the folder"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("step 1 · action fs:list {}");
    expect(run.stdout).toContain('"entries":["notes.txt"]');
  });

  it("asks before a write and, with no terminal to answer, refuses it; a profile file finds the default deliberation workflow", async () => {
    const profile = join(project, "writer.json");
    writeFileSync(profile, JSON.stringify({ id: "writer", name: "Writer", deliberationWorkflowId: "agent-deliberation", protocol: "action-xml", tools: ["fs:write"] }));
    const run = await weftAgent([profile, "--project", project, "--message", 'Write "hello" to the file @project/out/note.txt']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("permission asked: fs.write on @project/out/note.txt");
    expect(run.stdout).toContain("(no terminal to ask: rejected)");
    expect(run.stdout).toContain("failed [E_PERMISSION_DENIED]: The user rejected fs.write on @project/out/note.txt. Their feedback: The user did not allow this call.");
    expect(existsSync(join(project, "out", "note.txt"))).toBe(false);
  });

  it("says clearly what is wrong with the profile or the provider", async () => {
    const unknown = await weftAgent(["nobody", "--message", "hi"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown agent profile "nobody"');
    expect(unknown.stderr).toMatch(/The profiles there are: .*calculator.*text-helper/);

    const bad = join(project, "bad-profile.json");
    writeFileSync(bad, '{"id": "x",\n "name": }');
    const broken = await weftAgent([bad, "--message", "hi"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("bad-profile.json:2:10: invalid JSON");

    const invalid = join(project, "invalid-profile.json");
    writeFileSync(invalid, JSON.stringify({ id: "x", name: "X", deliberationWorkflowId: "agent-deliberation", protocol: "smoke-signals" }));
    const wrong = await weftAgent([invalid, "--message", "hi"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("is not a valid agent profile");
    expect(wrong.stderr).toContain("protocol:");

    const port = await closedPort();
    const unreachable = await weftAgent(["calculator", "--project", project, "--message", "hi"], { WEFT_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, WEFT_LLM_MODEL: "some-model" });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`the LLM at http://127.0.0.1:${port}/v1 could not be reached (NETWORK)`);

    const noMessage = await weftAgent(["calculator"]);
    expect(noMessage.code).toBe(2);
    expect(noMessage.stderr).toContain('needs --message "…"');
  });
});

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
