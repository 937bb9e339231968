/** `weft run --fork` as the real process against a real server. */
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "@weft/backend/src/testing/test-server.ts";
import { StartedRunSchema } from "@weft/backend/src/testing/answers.ts";

const MAIN = join(resolve(import.meta.dirname, "../.."), "src/main.ts");

let t: TestServer;
let runId: string;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, NO_COLOR: "1", WEFT_AUTH_TOKEN: t.server.accessToken, WEFT_SERVER_URL: t.url };
  const proc = Bun.spawn([process.execPath, MAIN, "run", ...args], { stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  const started = await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "forks" } });
  runId = StartedRunSchema.parse(started.body).runId;
  expect((await waitForRun(t, runId)).run.outputs).toEqual({ text: "Notes on forks" });
});
afterAll(() => t?.stop());

describe("weft run --fork", () => {
  it("forks a past run at a node with a changed setting and prints the fork's outputs", async () => {
    const res = await weft("--fork", runId, "--at", "fill", "--set", "template=Forked: {{0}}");
    expect(res.stderr).toContain(`of run ${runId} at "fill"`);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ text: "Forked: forks" });
    const forkId = /fork (\S+) of run/.exec(res.stderr)?.[1] ?? "";
    const stored = await waitForRun(t, forkId);
    expect(stored.run.forkOf).toEqual({ runId, nodeId: "fill" });
    expect(stored.observations.find((o) => o.nodeId === "topic")?.cached).toBe(true);
  });

  it("sets an input of the node with --input port=value", async () => {
    const res = await weft("--fork", runId, "--at", "fill", "--input", "values=edited");
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ text: "Notes on edited" });
  });

  it("exits 2 with the server's reason for an unknown node, and when --at is missing", async () => {
    const unknown = await weft("--fork", runId, "--at", "nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no node "nope"');
    const noAt = await weft("--fork", runId);
    expect(noAt.code).toBe(2);
    expect(noAt.stderr).toContain("--fork needs --at <nodeId>");
  });
});
