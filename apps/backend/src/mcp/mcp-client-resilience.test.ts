import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freePort } from "../testing/free-port.ts";
import { EventsPageSchema, startTestServer, waitFor, waitForRun, type RunAnswer, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { oneNodeWorkflow } from "../testing/one-node-workflow.ts";

const EVERYTHING = join(fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url)), "server-everything/dist/index.js");

/** One MCP server's status in GET /api/settings/mcp, kept whole (loose). */
const StatusSchema = z.looseObject({ state: z.string(), restarts: z.number().int(), pid: z.number().int().optional() });
const SettingsSchema = z.object({ status: z.record(z.string(), StatusSchema) });
/** The error an MCP node's `result` output carries when the call failed. */
const FailedResultSchema = z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) });

/** server-everything over Streamable HTTP on `port`, listening once this resolves. */
async function startRemote(port: number): Promise<ReturnType<typeof Bun.spawn>> {
  const child = Bun.spawn([process.execPath, EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "ignore" });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/mcp`).catch(() => undefined)) ?? undefined, 60_000, "server-everything over HTTP to listen");
  return child;
}

/**
 * A gateway in front of a Streamable HTTP server that offers no standalone GET stream (405, as the spec
 * allows): the client learns of a restarted server only from the 400/404 answer to its next call.
 */
function startGateway(target: () => number): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      if (request.method === "GET") return new Response(null, { status: 405, headers: { allow: "POST, DELETE" } });
      const url = new URL(request.url);
      const body = await request.arrayBuffer();
      const answer = await fetch(`http://127.0.0.1:${target()}${url.pathname}`, { method: request.method, headers: request.headers, body }).catch(() => undefined);
      // The server is down (between a kill and its restart): a gateway's answer.
      if (!answer) return new Response("upstream down", { status: 502 });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
}

/**
 * The MCP client when servers go away: a restarted Streamable HTTP server (its sessions gone), a server
 * killed while a call waits, and long calls kept alive by progress. Real server-everything processes.
 */
describe("MCP servers that restart, die or take long", () => {
  let t: TestServer;
  let port: number;
  let remote: ReturnType<typeof Bun.spawn> | undefined;
  let gateway: ReturnType<typeof Bun.serve> | undefined;

  const status = async () => SettingsSchema.parse((await t.call("GET", "/api/settings/mcp")).body).status;
  const start = async (workflowId: string) => {
    const started = await t.call("POST", `/api/workflows/${workflowId}/runs`, { inputs: {} });
    expect(started.status).toBe(202);
    return StartedRunSchema.parse(started.body).runId;
  };
  const chunksOf = async (runId: string) =>
    EventsPageSchema.parse((await t.call("GET", `/api/runs/${runId}/events?limit=10000`)).body).events.flatMap((e) => (e.type === "node.chunk" ? [e.chunk] : []));
  const resultOf = (answer: RunAnswer) => answer.run.outputs.result;

  beforeAll(async () => {
    port = await freePort();
    remote = await startRemote(port);
    gateway = startGateway(() => port);
    t = await startTestServer();
    const put = await t.call("PUT", "/api/settings/mcp", {
      mcpServers: {
        // A call may go 5 s without an answer, as long as progress keeps coming (every second here).
        local: { command: process.execPath, args: [EVERYTHING], timeout: 5000 },
        remote: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
        gated: { url: `http://127.0.0.1:${gateway.port}/mcp` },
      },
    });
    expect(put.status).toBe(200);
    for (const workflow of [
      oneNodeWorkflow("remote-echo", "mcp:remote.echo", { message: "again" }),
      oneNodeWorkflow("gated-echo", "mcp:gated.echo", { message: "through the gateway" }),
      oneNodeWorkflow("remote-long", "mcp:remote.trigger-long-running-operation", { duration: 40, steps: 40 }),
      oneNodeWorkflow("local-long", "mcp:local.trigger-long-running-operation", { duration: 40, steps: 40 }),
      oneNodeWorkflow("local-progress", "mcp:local.trigger-long-running-operation", { duration: 12, steps: 12 }),
      oneNodeWorkflow("local-silent", "mcp:local.trigger-long-running-operation", { duration: 12, steps: 1 }),
    ])
      expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await gateway?.stop(true);
    remote?.kill();
  });

  it("reaches a restarted Streamable HTTP server again on the next call (a new session), the status showing the loss meanwhile", async () => {
    const first = await waitForRun(t, await start("remote-echo"));
    expect(first.run.status).toBe("completed");
    expect(resultOf(first)).toMatchObject({ ok: true, text: "Echo: again" });

    remote?.kill("SIGKILL");
    await remote?.exited;
    // The dropped stream is noticed without a call: the status no longer says ready.
    await waitFor(async () => ((await status()).remote?.state !== "ready" ? true : undefined), 30_000, "the status to show the lost server");
    remote = await startRemote(port);

    const again = await waitForRun(t, await start("remote-echo"));
    expect(again.run.status).toBe("completed");
    expect(resultOf(again)).toMatchObject({ ok: true, text: "Echo: again" });
    expect((await status()).remote).toMatchObject({ state: "ready", restarts: expect.any(Number) });
    expect((await status()).remote?.restarts).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("replaces a session the server no longer knows and sends the call again, once", async () => {
    expect(resultOf(await waitForRun(t, await start("gated-echo")))).toMatchObject({ ok: true });
    const before = (await status()).gated!;
    // Restarted between two calls: nothing told the client, the server answers the old session 400 "No valid session ID".
    remote?.kill("SIGKILL");
    await remote?.exited;
    remote = await startRemote(port);
    expect((await status()).gated?.state).toBe("ready");
    const answer = await waitForRun(t, await start("gated-echo"));
    expect(answer.run.status).toBe("completed");
    expect(resultOf(answer)).toMatchObject({ ok: true, text: "Echo: through the gateway" });
    expect((await status()).gated).toMatchObject({ state: "ready", restarts: before.restarts + 1 });
  }, 120_000);

  it("fails a call at once when its Streamable HTTP server is killed during it, not after a time limit", async () => {
    const runId = await start("remote-long");
    // The call is under way once its first progress report arrived.
    await waitFor(async () => ((await chunksOf(runId)).length > 0 ? true : undefined), 30_000, "the first progress report");
    remote?.kill("SIGKILL");
    await remote?.exited;
    // Far below the SDK's 60 s default and the 40 s the tool would take.
    const ended = await waitForRun(t, runId, 20_000);
    expect(FailedResultSchema.parse(resultOf(ended)).error.code).toBe("E_MCP_CONNECTION_LOST");
    expect((await status()).remote?.state).not.toBe("ready");
    remote = await startRemote(port);
  }, 120_000);

  it("fails a call at once when its stdio server process dies during it", async () => {
    const runId = await start("local-long");
    await waitFor(async () => ((await chunksOf(runId)).length > 0 ? true : undefined), 30_000, "the first progress report");
    const before = (await status()).local!;
    process.kill(before.pid!, "SIGKILL");
    const ended = await waitForRun(t, runId, 20_000);
    expect(FailedResultSchema.parse(resultOf(ended)).error.code).toBe("E_MCP_CONNECTION_LOST");
    // Restarted for the next call.
    await waitFor(async () => ((await status()).local?.restarts === before.restarts + 1 && (await status()).local?.state === "ready" ? true : undefined), 30_000, "the restart");
  }, 120_000);

  it("keeps a call longer than its time limit alive while progress comes, streaming each report as a chunk", async () => {
    const runId = await start("local-progress");
    const answer = await waitForRun(t, runId, 60_000);
    expect(resultOf(answer)).toMatchObject({ ok: true, text: expect.stringContaining("Long running operation completed") });
    expect(answer.run.status).toBe("completed");
    const chunks = z.array(z.object({ progress: z.number(), total: z.number() })).parse(await chunksOf(runId));
    expect(chunks.map((c) => c.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(answer.observations.find((o) => o.nodeId === "call")?.chunks).toHaveLength(12);
  }, 90_000);

  it("cancels a call that sends neither answer nor progress within the server's time limit", async () => {
    const answer = await waitForRun(t, await start("local-silent"), 60_000);
    const failed = FailedResultSchema.parse(resultOf(answer));
    expect(failed.error.code).toBe("E_MCP_TIMEOUT");
    expect(failed.error.message).toContain('"timeout"');
  }, 90_000);
});
