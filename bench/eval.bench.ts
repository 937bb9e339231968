/**
 * `bun bench/eval.bench.ts` (`bun run bench:eval`): forks from recorded runs (issue 33). A real server (embedded mode,
 * SQLite) runs a 1,000-node chain once; then each fork of its last node (`POST /api/runs/:id/fork` with a changed
 * template) is timed from the request to the fork's completion as `GET /api/runs/:id` reports it (polled every 1 ms):
 * the 999 nodes before it come from the stored record, one node executes.
 *
 * Prints one JSON line: `fork_ms` (the median of BENCH_FORKS forks, default 7; goal ≤ 100), its min and max, and the
 * nodes the last fork executed (goal 1).
 */
import { chainWorkflow, RunAnswerSchema, startTestServer, waitFor } from "../apps/backend/src/testing/test-server.ts";
import { StartedRunSchema } from "../apps/backend/src/testing/answers.ts";

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const FORKS = Number(process.env.BENCH_FORKS ?? 7);

const t = await startTestServer();
try {
  const ended = (runId: string) =>
    waitFor(
      async () => {
        const answer = RunAnswerSchema.parse((await t.call("GET", `/api/runs/${runId}`)).body);
        if (["completed", "failed", "cancelled", "interrupted"].includes(answer.run.status)) return answer;
        await Bun.sleep(1);
        return undefined;
      },
      120_000,
      `run ${runId}`,
    );
  if ((await t.call("POST", "/api/workflows", { workflow: chainWorkflow("chain", NODES) })).status !== 201) throw new Error("saving the chain failed");
  const original = StartedRunSchema.parse((await t.call("POST", "/api/workflows/chain/runs", {})).body).runId;
  if ((await ended(original)).run.status !== "completed") throw new Error("the recorded run did not complete");

  const times: number[] = [];
  let executed = 0;
  for (let i = 0; i < FORKS; i++) {
    const t0 = performance.now();
    const res = await t.call("POST", `/api/runs/${original}/fork`, { at: `n${NODES - 1}`, settings: { template: `fork ${i}: {{0}}` } });
    if (res.status !== 202) throw new Error(`fork answered ${res.status}: ${JSON.stringify(res.body)}`);
    const fork = await ended(StartedRunSchema.parse(res.body).runId);
    times.push(performance.now() - t0);
    if (fork.run.status !== "completed") throw new Error(`the fork ended ${fork.run.status}`);
    executed = fork.observations.filter((o) => !o.cached).length;
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "fork",
      nodes: NODES,
      forks: FORKS,
      fork_ms: round(times[Math.floor(times.length / 2)]),
      fork_min_ms: round(times[0]),
      fork_max_ms: round(times[times.length - 1]),
      nodes_executed: executed,
    }),
  );
} finally {
  await t.stop();
}
