import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../../testing/test-server.ts";
import { StartedRunSchema } from "../../testing/answers.ts";
import { parseExposition, sampleValue } from "../testing/exposition.ts";

/** Prometheus' own linter (Debian's `prometheus` package; scripts/ensure-promtool.sh installs it for `npm test`). */
const PROMTOOL = Bun.which("promtool");
if (!PROMTOOL && !process.env.CI) console.warn("promtool is not installed (apt-get install prometheus): the `promtool check metrics` test is skipped; in CI it fails instead.");

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  // A run first, so the labelled run and node series have samples to lint too.
  const started = StartedRunSchema.parse((await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "lint" } })).body);
  expect((await waitForRun(t, started.runId)).run.status).toBe("completed");
  // And an LLM call (the demo LLM), for the LLM usage series.
  expect((await t.call("POST", "/api/workflows", { workflow: { id: "ask", name: "ask", nodes: [{ id: "call", type: "llm:chat", inputs: { prompt: "hello" } }], edges: [] } })).status).toBe(201);
  const asked = StartedRunSchema.parse((await t.call("POST", "/api/workflows/ask/runs", { inputs: {} })).body);
  await waitForRun(t, asked.runId);
});
afterAll(() => t.stop());

async function exposition(): Promise<string> {
  const res = await t.fetch("/metrics");
  expect(res.status).toBe(200);
  return res.text();
}

describe("GET /metrics as Prometheus reads it", () => {
  it.skipIf(!PROMTOOL && !process.env.CI)("passes `promtool check metrics` (exit 0, no lint problem)", { timeout: 60_000 }, async () => {
    expect(PROMTOOL, "promtool is missing: apt-get install prometheus").toBeTruthy();
    const proc = Bun.spawn([PROMTOOL ?? "promtool", "check", "metrics"], { stdin: new TextEncoder().encode(await exposition()), stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stdout + stderr).toBe("");
    expect(exitCode).toBe(0);
  });

  it("counts the LLM call's tokens by profile and model", async () => {
    const samples = parseExposition(await exposition());
    expect(sampleValue(samples, "weft_llm_calls_total", { profile: "demo", model: "weft-demo", estimated: "false" })).toBe(1);
    expect(sampleValue(samples, "weft_llm_tokens_total", { profile: "demo", model: "weft-demo", kind: "prompt" })).toBeGreaterThan(0);
  });

  it("reports the runtime as Bun, with Bun's version, and claims no Node.js version", async () => {
    const samples = parseExposition(await exposition());
    expect(sampleValue(samples, "weft_bun_version_info", { version: `v${Bun.version}` })).toBe(1);
    expect(samples.filter((s) => s.name.startsWith("weft_nodejs_version"))).toEqual([]);
  });
});
