/** The real `weft` process, run against temp files and the example workflows. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunResultSchema } from "@weft/types";

const ROOT = resolve(import.meta.dirname, "../../..");
const MAIN = join(ROOT, "apps/cli/src/main.ts");
const EXAMPLES = join(ROOT, "workflows");
let dir: string;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
  // LLM nodes then use the offline demo LLM that `weft run` starts itself.
  for (const name of ["WEFT_LLM_BASE_URL", "WEFT_LLM_MODEL", "WEFT_LLM_API_KEY"]) delete env[name];
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

/** Never a stack trace: no "    at fn (file:line)" frames. */
function expectNoStackTrace(text: string): void {
  expect(text).not.toMatch(/^\s+at .+:\d+/m);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "weft-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const greet = {
  id: "greet",
  name: "Greet",
  nodes: [
    { id: "name", type: "core:workflow-input", config: { name: "name", portType: "string", required: true } },
    { id: "times", type: "core:workflow-input", config: { name: "times", portType: "number", default: 1 } },
    { id: "hello", type: "core:text-template", config: { template: "Hello, {{0}} x{{1}}!" } },
    { id: "out", type: "core:workflow-output", config: { name: "greeting", portType: "string" } },
  ],
  edges: [
    { id: "e1", source: "name", sourceHandle: "value", target: "hello", targetHandle: "values" },
    { id: "e2", source: "times", sourceHandle: "value", target: "hello", targetHandle: "values" },
    { id: "e3", source: "hello", sourceHandle: "text", target: "out", targetHandle: "value" },
  ],
};

describe("weft validate", () => {
  it("accepts a valid example", async () => {
    const { code, stdout } = await weft("validate", join(EXAMPLES, "branch.json"));
    expect(code).toBe(0);
    expect(stdout).toContain("is valid");
  });

  it("prints every problem with the node and the fix, and exits 1", async () => {
    const path = file("bad.json", {
      id: "bad",
      name: "bad",
      nodes: [
        { id: "typo", type: "core:text-transfrom" },
        { id: "b", type: "core:math" },
        { id: "c", type: "core:math" },
        { id: "t", type: "core:const-text", config: { value: "x" } },
      ],
      edges: [
        { id: "e1", source: "b", sourceHandle: "result", target: "c", targetHandle: "a" },
        { id: "e2", source: "c", sourceHandle: "result", target: "b", targetHandle: "a" },
        { id: "e3", source: "t", sourceHandle: "value", target: "b", targetHandle: "b" },
      ],
    });
    const { code, stdout } = await weft("validate", path);
    expect(code).toBe(1);
    expect(stdout).toContain('[UNKNOWN_NODE_TYPE] node "typo"');
    expect(stdout).toContain('did you mean "core:text-transform"');
    expect(stdout).toContain('[CYCLE] node "b": the nodes form a cycle: "b" → "c" → "b"');
    expect(stdout).toContain('[PORT_TYPE_MISMATCH] node "b"');
    expect(stdout.match(/fix: /g)).toHaveLength(3);
    expect(stdout).toContain("3 problems");
    const json = await weft("validate", path, "--json");
    expect(JSON.parse(json.stdout).issues).toHaveLength(3);
  });

  it("reports a missing file, a folder and invalid JSON (with line and column) without a stack trace", async () => {
    const missing = await weft("validate", join(dir, "nope.json"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no such file");
    const folder = await weft("validate", dir);
    expect(folder.stderr).toContain("it is a folder");
    const broken = file("broken.json", '{\n  "id": "x",\n  "nodes": [1, 2,]\n}\n');
    const syntax = await weft("validate", broken);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain("broken.json:3:18: invalid JSON");
    expect(syntax.stderr).toContain("line 3, column 18");
    const none = await weft("validate");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("weft validate <file.json>");
    for (const r of [missing, folder, syntax, none]) expectNoStackTrace(r.stderr);
  });
});

describe("weft run", () => {
  it("prints progress on stderr and the interface outputs as JSON on stdout", async () => {
    const { code, stdout, stderr } = await weft("run", join(EXAMPLES, "text-pipeline.json"));
    expect(code).toBe(0);
    const outputs = JSON.parse(stdout);
    expect(Object.keys(outputs).length).toBeGreaterThan(0);
    // Its nodes complete within their calls: one line each, with the node's type.
    expect(stderr).toMatch(/^ {2}✓ \S+ \(core:workflow-input\) [\d.]+m?s$/m);
    expect(stderr).toMatch(/✓ completed in/);
  });

  it("takes --input values as JSON when they parse, else as text, and prints the whole result with --json", async () => {
    const path = file("greet.json", greet);
    const { code, stdout } = await weft("run", path, "--input", "name=Ada", "--input", "times=3");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ greeting: "Hello, Ada x3!" });
    // A string input keeps "42" as text.
    const numeric = await weft("run", path, "-i", "name=42");
    expect(JSON.parse(numeric.stdout)).toEqual({ greeting: "Hello, 42 x1!" });
    const full = await weft("run", path, "--input", "name=Bo", "--json");
    const result = RunResultSchema.parse(JSON.parse(full.stdout));
    expect(result.status).toBe("completed");
    expect(result.outputs).toEqual({ greeting: "Hello, Bo x1!" });
    expect(result.observations.map((o) => o.nodeId).sort()).toEqual(["hello", "name", "out", "times"]);
  });

  it("refuses an unknown --input name, a malformed one, a missing required input and a wrong type, naming the inputs", async () => {
    const path = file("greet.json", greet);
    const unknown = await weft("run", path, "--input", "nmae=Ada");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no input "nmae"');
    expect(unknown.stderr).toContain("name (string, required), times (number, default 1)");
    const malformed = await weft("run", path, "--input", "Ada");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("is not name=value");
    const missing = await weft("run", path);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[INVALID_INPUT] missing required input "name"');
    expect(missing.stderr).toContain("--input name=value");
    const wrongType = await weft("run", path, "--input", "name=Ada", "--input", "times=many");
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toContain('input "times" must be a number, got string');
    for (const r of [unknown, malformed, missing, wrongType]) expectNoStackTrace(r.stderr);
  });

  it("runs nothing for an invalid workflow and names each problem and its fix", async () => {
    const path = file("cycle.json", {
      id: "cycle",
      name: "cycle",
      nodes: [
        { id: "x", type: "core:text-transform" },
        { id: "y", type: "core:text-transform" },
        { id: "n", type: "core:const-number", config: { value: 1 } },
        { id: "z", type: "core:text-split" },
      ],
      edges: [
        { id: "a", source: "x", sourceHandle: "text", target: "y", targetHandle: "text" },
        { id: "b", source: "y", sourceHandle: "text", target: "x", targetHandle: "text" },
        { id: "c", source: "n", sourceHandle: "value", target: "z", targetHandle: "text" },
      ],
    });
    const { code, stdout, stderr } = await weft("run", path);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('"x" → "y" → "x"');
    expect(stderr).toContain('[PORT_TYPE_MISMATCH] node "z"');
    expect(stderr).toContain("nothing was run");
    expectNoStackTrace(stderr);
  });

  it("resolves skills from the file's folder", async () => {
    const { code, stdout, stderr } = await weft("run", join(EXAMPLES, "calls-skill.json"));
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(stdout)).length).toBeGreaterThan(0);
    expect(stderr).toMatch(/✓ \w+\/\w+/);
  });

  it("exits 1 when a branch fails, still printing the other branch's outputs", async () => {
    const { code, stdout, stderr } = await weft("run", join(EXAMPLES, "partial-failure.json"));
    expect(code).toBe(1);
    expect(Object.keys(JSON.parse(stdout)).length).toBeGreaterThan(0);
    expect(stderr).toMatch(/^ {2}✗ \S+ \[\w+\]/m);
    expect(stderr).toMatch(/^ {2}– \S+ skipped: /m);
    expect(stderr).toMatch(/✗ failed after/);
  });

  it("streams an LLM node's chunks compactly on one line (demo LLM), and returns its final text", async () => {
    const question = "What is a weft? Please explain in a few sentences.";
    const { code, stdout, stderr } = await weft("run", join(EXAMPLES, "agent-deliberation.json"), "--input", `messages=[{"role":"user","content":"${question}"}]`);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).text).toContain(question);
    const streamLine = stderr.split("\n").find((l) => l.startsWith("  ⋯ llm: "));
    expect(streamLine).toBeDefined();
    expect(streamLine!.length).toBeLessThan(200);
    expect(stderr).toMatch(/✓ llm [\d.]+m?s · \d+ chunks/);
  });

  it("shows a cached node as cached on a repeat inside one run", async () => {
    const path = file("twice.json", {
      id: "twice",
      name: "twice",
      nodes: [
        { id: "a", type: "core:text-transform", inputs: { text: "same" } },
        { id: "b", type: "core:text-transform", inputs: { text: "same" } },
      ],
    });
    const { code, stderr } = await weft("run", path);
    expect(code).toBe(0);
    expect(stderr.match(/✓ a /g)?.length ?? 0).toBe(1);
    expect(stderr).toMatch(/○ b cached/);
  });
});

describe("weft run, interrupted", () => {
  it("Ctrl-C cancels the run: the running node is told, the run ends cancelled with exit 130", async () => {
    const path = file("slow.json", { id: "slow", name: "slow", nodes: [{ id: "wait", type: "core:delay", inputs: { ms: 20_000 } }] });
    const proc = Bun.spawn([process.execPath, MAIN, "run", path], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const decoder = new TextDecoder();
    let stderr = "";
    const reader = proc.stderr.getReader();
    while (!stderr.includes("… wait")) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value);
    }
    proc.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value);
    }
    expect(await proc.exited).toBe(130);
    expect(stderr).toContain("cancelling");
    expect(stderr).toMatch(/■ cancelled after/);
  });
});

describe("weft nodes and usage", () => {
  it("lists the node types, and their specs with --json", async () => {
    const text = await weft("nodes");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("core:skill");
    expect(text.stdout).toMatch(/in: text:string\*/);
    const json = await weft("nodes", "--json");
    const specs = JSON.parse(json.stdout) as { type: string }[];
    expect(specs.map((s) => s.type)).toContain("core:workflow-input");
  });

  it("explains an unknown command or option", async () => {
    const unknown = await weft("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const option = await weft("run", "--frob");
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("--frob");
    expectNoStackTrace(option.stderr);
  });
});
