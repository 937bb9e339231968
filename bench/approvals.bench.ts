/**
 * `bun run bench:approvals`: what waiting runs cost. A real server process starts N runs (default 10,000; `N=…`) of a
 * workflow whose `core:approval` node pauses them, and prints one JSON line once all wait: the database's bytes per
 * waiting run (run, observations, events and approval rows), the server's resident memory before and after (a waiting
 * run holds nothing in memory: the difference is the database's page cache and the allocator, not per-run state), and
 * how fast they were started and paused. Then it approves one and times its resume.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer, type ChildServer } from "../apps/backend/src/testing/child-server.ts";
import { ApprovalListSchema, RunListSchema, RunStatusSchema, StartedRunSchema } from "../apps/backend/src/testing/answers.ts";
import { databaseBytes } from "./support/database-bytes.ts";

const N = Number(process.env.N ?? 10_000);
const PARALLEL = 32;

async function must(server: ChildServer, method: string, path: string, body?: unknown, status = 200) {
  const res = await server.call(method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The server process's resident memory (Linux), in bytes. */
function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
}

async function unfinished(server: ChildServer): Promise<number> {
  let count = 0;
  for (const status of ["queued", "running"]) count += RunListSchema.parse(await must(server, "GET", `/api/runs?status=${status}&limit=500`)).runs.length;
  return count;
}

const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-approvals-"));
const server = await spawnServer(dataDir, { WEFT_DEMO_LLM: "off", WEFT_MAX_QUEUED_RUNS: String(N + 100) });
try {
  await must(
    server,
    "POST",
    "/api/workflows",
    {
      workflow: {
        id: "bench-approval",
        name: "Bench approval",
        nodes: [
          { id: "gate", type: "core:approval", config: { question: "Refund?" }, inputs: { data: { customer: "Ada", amount: 42 } } },
          { id: "yes", type: "core:json-stringify" },
          { id: "no", type: "core:json-stringify" },
        ],
        edges: [
          { id: "e1", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "value" },
          { id: "e2", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "value" },
        ],
      },
    },
    201,
  );
  const bytesBefore = databaseBytes(dataDir);
  const rssBefore = rssBytes(server.proc.pid);
  const started = performance.now();
  let next = 0;
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < N) {
        next++;
        ids.push(StartedRunSchema.parse(await must(server, "POST", "/api/workflows/bench-approval/runs", {}, 202)).runId);
      }
    }),
  );
  const startMs = performance.now() - started;
  while ((await unfinished(server)) > 0) await Bun.sleep(200);
  const waitingMs = performance.now() - started;
  // Let the journal's writes and the WAL settle before measuring.
  await Bun.sleep(1000);
  const bytesAfter = databaseBytes(dataDir);
  const rssAfter = rssBytes(server.proc.pid);

  const first = ApprovalListSchema.parse(await must(server, "GET", "/api/approvals?limit=1")).approvals[0];
  if (!first) throw new Error("no approval is pending");
  const resumeStarted = performance.now();
  await must(server, "POST", `/api/approvals/${first.id}/decision`, { decision: "approved" });
  for (;;) {
    const { run } = RunStatusSchema.parse(await must(server, "GET", `/api/runs/${first.runId}`));
    if (run.status === "completed") break;
    await Bun.sleep(5);
  }
  const resumeMs = performance.now() - resumeStarted;
  console.log(
    JSON.stringify({
      bench: "approvals",
      waiting_runs: ids.length,
      db_bytes_per_waiting_run: Math.round((bytesAfter - bytesBefore) / ids.length),
      rss_mb_before: Math.round(rssBefore / 2 ** 20),
      rss_mb_after: Math.round(rssAfter / 2 ** 20),
      starts_per_s: Math.round(ids.length / (startMs / 1000)),
      all_waiting_ms: Math.round(waitingMs),
      resume_one_ms: Math.round(resumeMs),
    }),
  );
} finally {
  server.proc.kill("SIGKILL");
  await server.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
