/**
 * What sealing costs each job and message on Redis (issue 31): `sealJob` + `openJob` for an agent message job,
 * `wrap` + `unwrap` for a pub/sub message (a run id, as a cancel; announcements are as small), warm, in one process. Prints one JSON line per case:
 *   {"bench":"queue-seal","case":…,"ops":N,"us_per_op":X}
 *
 *   bun bench/queue-seal.bench.ts            (BENCH_SEAL_OPS changes the count, default 50,000)
 */
import { randomBytes } from "node:crypto";
import { silentLogger } from "../packages/types/src/index.ts";
import { AgentJobDataSchema, RunJobDataSchema } from "../apps/backend/src/queue/queue-names.ts";
import { deriveQueueKey, MESSAGE_MAX_AGE_MS, openJob, QueueSeal, sealJob } from "../apps/backend/src/queue/queue-seal.ts";

const OPS = Number(process.env.BENCH_SEAL_OPS ?? 50_000);
const seal = new QueueSeal(deriveQueueKey(randomBytes(32)), silentLogger);
const job = { agentId: "scribe", conversationId: "c8d7e0b4-5d1b-4a59-9a43-0c6f1f3b2a11", message: "Write a summary of the meeting notes to @project/summary.md", createdBy: "u-1", messagesBefore: 12 };

function measure(name: string, op: (i: number) => void): void {
  for (let i = 0; i < 2000; i++) op(i);
  const start = Bun.nanoseconds();
  for (let i = 0; i < OPS; i++) op(i);
  const us = (Bun.nanoseconds() - start) / 1000 / OPS;
  console.log(JSON.stringify({ bench: "queue-seal", case: name, ops: OPS, us_per_op: Math.round(us * 100) / 100 }));
}

measure("agent-job seal+open", (i) => {
  const id = `job-${i}`;
  openJob(seal, "agents", { id, data: JSON.parse(JSON.stringify(sealJob(seal, "agents", id, job))) }, AgentJobDataSchema, "bench job");
});
measure("message wrap+unwrap", (i) => {
  const text = seal.wrap("weft:cancel", { runId: `run-${i}` });
  seal.unwrap("weft:cancel", text, RunJobDataSchema, "bench message", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
});
measure("message JSON only (no seal, the former cost)", (i) => {
  RunJobDataSchema.parse(JSON.parse(JSON.stringify({ runId: `run-${i}` })));
});
