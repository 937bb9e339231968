import { z } from "zod";
import { ObservationSchema, RunEventSchema, silentLogger, WorkflowSchema, type WorkflowInput } from "@weft/types";
import { RunRecordSchema } from "../events/run-repository.ts";
import { createServer, type ServerOptions, type WeftServer } from "../server.ts";
import { TEST_TOKEN, call } from "./http-call.ts";
import { removeDir, tempDir } from "./temp-dirs.ts";

export { TEST_TOKEN, call, removeDir, tempDir };

export interface TestServer {
  server: WeftServer;
  url: string;
  dataDir: string;
  port(): number;
  /** fetch against the server as its owner (the access token), JSON body in and parsed JSON out. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown; headers: Headers }>;
  /** A raw fetch of `path` as the owner (the token added to `init`'s headers), for answers that are not JSON. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * A real server on a free loopback port, with its SQLite file in a fresh temp folder. The folders it makes (data, examples,
 * and the server's `<data>-project`) are removed after the test file (temp-dirs.ts), so `stop()` only stops the server.
 */
export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  const examplesDir = options.examplesDir ?? tempDir("weft-examples-");
  const server = await createServer({ port: 0, logger: silentLogger, examplesDir, shutdownGraceMs: 200, authToken: TEST_TOKEN, ...options, dataDir });
  return {
    server,
    url: server.url,
    dataDir,
    port: () => server.port,
    call: (method, path, body, headers) => call(server.url, method, path, body, { authorization: `Bearer ${server.accessToken}`, ...headers }),
    fetch: (path, init = {}) => fetch(server.url + path, { ...init, headers: { authorization: `Bearer ${server.accessToken}`, ...(init.headers as Record<string, string> | undefined) } }),
    stop: () => server.stop(),
  };
}

/** topic (string) → template "Notes on {{0}}" → output `text`. */
export function templateWorkflow(id = "notes", template = "Notes on {{0}}"): WorkflowInput {
  return {
    id,
    name: "Notes",
    nodes: [
      { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
      { id: "fill", type: "core:text-template", config: { template } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "topic", sourceHandle: "value", target: "fill", targetHandle: "values" },
      { id: "e2", source: "fill", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
}

/** A workflow that waits `ms` (core:delay), for runs that must still be going while a test acts. */
export function slowWorkflow(id = "slow", ms = 30_000): WorkflowInput {
  return {
    id,
    name: "Slow",
    nodes: [
      { id: "wait", type: "core:delay", inputs: { ms, value: "done" } },
      { id: "out", type: "core:workflow-output", config: { name: "value", portType: "any" } },
    ],
    edges: [{ id: "e1", source: "wait", sourceHandle: "value", target: "out", targetHandle: "value" }],
  };
}

/** A chain of `n` text templates, each appending to the previous text: n nodes, many events. */
export function chainWorkflow(id: string, n: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [{ id: "n0", type: "core:const-text", config: { value: "x" } }];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 1; i < n; i++) {
    nodes.push({ id: `n${i}`, type: "core:text-template", config: { template: "{{0}}" } });
    edges.push({ id: `e${i}`, source: `n${i - 1}`, sourceHandle: i === 1 ? "value" : "text", target: `n${i}`, targetHandle: "values" });
  }
  return { id, name: `Chain of ${n}`, nodes, edges };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** The GET /api/runs/:id answer, read through the shared schemas (a queued run also has its queuePosition). */
export const RunAnswerSchema = z.object({
  run: RunRecordSchema.extend({ queuePosition: z.number().int().optional() }),
  workflow: WorkflowSchema,
  observations: z.array(ObservationSchema),
});
export type RunAnswer = z.infer<typeof RunAnswerSchema>;

/** A page of GET /api/runs/:id/events (or /api/streams/:id/events). */
export const EventsPageSchema = z.object({ events: z.array(RunEventSchema), hasMore: z.boolean() });

/** Waits until the run reached one of the end states and returns the GET /api/runs/:id answer. */
export async function waitForRun(t: TestServer, runId: string, timeoutMs = 60_000): Promise<RunAnswer> {
  return waitFor(
    async () => {
      const res = await t.call("GET", `/api/runs/${runId}`);
      const probe = z.object({ run: z.object({ status: z.string() }) }).safeParse(res.body);
      return probe.success && ["completed", "failed", "cancelled", "interrupted", "budget_exceeded"].includes(probe.data.run.status) ? RunAnswerSchema.parse(res.body) : undefined;
    },
    timeoutMs,
    `run ${runId} to end`,
  );
}

/** `n` delays of `ms` each in a row: a run that produces events steadily for about n × ms. */
export function delayChainWorkflow(id: string, n: number, ms: number): WorkflowInput {
  const nodes: WorkflowInput["nodes"] = [];
  const edges: NonNullable<WorkflowInput["edges"]> = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `d${i}`, type: "core:delay", inputs: { ms, ...(i === 0 ? { value: 0 } : {}) } });
    if (i > 0) edges.push({ id: `e${i}`, source: `d${i - 1}`, sourceHandle: "value", target: `d${i}`, targetHandle: "value" });
  }
  return { id, name: `Delays ${n}×${ms}ms`, nodes, edges };
}
