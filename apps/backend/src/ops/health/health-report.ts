import { z } from "zod";
import type { RunQueueProbe } from "../queue-probe.ts";

/** How the server's database answers a probe; `ping` rejects (or never settles) when it does not. */
export interface DatabaseProbe {
  readonly engine: "sqlite" | "postgres";
  ping(): Promise<void>;
}

/**
 * What `GET /api/health` answers, to anyone: whether the server and what it depends on answer, and
 * nothing an outsider could use (no addresses, names, counts of records or versions of the engines).
 */
export const HealthReportSchema = z.object({
  ok: z.boolean().describe("false when the database (or, in queue mode, Redis) does not answer; the status is then 503"),
  version: z.string(),
  database: z.object({ engine: z.enum(["sqlite", "postgres"]), reachable: z.boolean() }),
  queue: z.discriminatedUnion("mode", [z.object({ mode: z.literal("embedded") }), z.object({ mode: z.literal("queue"), redis: z.object({ reachable: z.boolean() }), workers: z.number() })]),
});
export type HealthReport = z.output<typeof HealthReportSchema>;

/** A dependency that takes longer than this counts as unreachable: a probe must answer quickly. */
const PROBE_TIMEOUT_MS = 2000;
/** Load balancers and benches may probe every few milliseconds; the dependencies are asked at most this often. */
const REPORT_TTL_MS = 1000;

async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), PROBE_TIMEOUT_MS)));
    await Promise.race([probe(), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Builds health reports, asking the database and the queue at most once per second. */
export class HealthReporter {
  private cached: { at: number; report: Promise<HealthReport> } | undefined;

  constructor(
    private readonly version: string,
    private readonly database: DatabaseProbe,
    private readonly queue: RunQueueProbe,
  ) {}

  report(now = Date.now()): Promise<HealthReport> {
    if (this.cached && now - this.cached.at < REPORT_TTL_MS) return this.cached.report;
    const report = this.probe();
    this.cached = { at: now, report };
    return report;
  }

  private async probe(): Promise<HealthReport> {
    const [databaseUp, queue] = await Promise.all([answers(() => this.database.ping()), this.queueReport()]);
    const redisUp = queue.mode === "queue" ? queue.redis.reachable : true;
    return { ok: databaseUp && redisUp, version: this.version, database: { engine: this.database.engine, reachable: databaseUp }, queue };
  }

  private async queueReport(): Promise<HealthReport["queue"]> {
    switch (this.queue.mode) {
      case "embedded":
        return { mode: "embedded" };
      case "queue": {
        const reachable = await answers(async () => {
          if ((await this.queue.redisReachable()) !== true) throw new Error("redis did not answer");
        });
        const workers = reachable ? await this.queue.workers().catch(() => 0) : 0;
        return { mode: "queue", redis: { reachable }, workers };
      }
    }
  }
}
