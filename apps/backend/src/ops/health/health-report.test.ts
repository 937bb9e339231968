import { Database } from "bun:sqlite";
import { describe, expect, it } from "vitest";
import { HealthReporter } from "./health-report.ts";
import { databaseProbe } from "./database-probe.ts";
import type { RunQueueProbe } from "../queue-probe.ts";
import type { SqlHandle } from "../../storage/sql-handle.ts";

/** A bare connection as the storage hands it out; the probe does not use the gate. */
function handleOf(db: Database): SqlHandle {
  const gate = async <T>(work: () => T): Promise<Awaited<T>> => await work();
  return { engine: "sqlite", db, gate };
}

const embedded: RunQueueProbe = { mode: "embedded", waiting: async () => 0, active: async () => 0, workers: async () => 0, redisReachable: async () => undefined };

function queueMode(redis: boolean, workers: number): RunQueueProbe {
  return { mode: "queue", waiting: async () => 0, active: async () => 0, workers: async () => workers, redisReachable: async () => redis };
}

describe("HealthReporter", () => {
  it("says the database is unreachable (ok: false) once its connection is gone", async () => {
    const db = new Database(":memory:");
    const reporter = new HealthReporter("1.2.3", databaseProbe(handleOf(db)), embedded);
    expect(await reporter.report(0)).toEqual({ ok: true, version: "1.2.3", database: { engine: "sqlite", reachable: true }, queue: { mode: "embedded" } });
    db.close();
    // Within a second the earlier answer is reused; after it, the database is asked again.
    expect((await reporter.report(500)).ok).toBe(true);
    expect(await reporter.report(1500)).toMatchObject({ ok: false, database: { engine: "sqlite", reachable: false } });
  });

  it("in queue mode reports Redis and the workers; Redis down makes it not ok", async () => {
    const db = new Database(":memory:");
    const sqlite = databaseProbe(handleOf(db));
    expect(await new HealthReporter("1.2.3", sqlite, queueMode(true, 2)).report()).toEqual({
      ok: true,
      version: "1.2.3",
      database: { engine: "sqlite", reachable: true },
      queue: { mode: "queue", redis: { reachable: true }, workers: 2 },
    });
    expect(await new HealthReporter("1.2.3", sqlite, queueMode(false, 2)).report()).toMatchObject({ ok: false, queue: { mode: "queue", redis: { reachable: false }, workers: 0 } });
    db.close();
  });
});
