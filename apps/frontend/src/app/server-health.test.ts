import { describe, expect, it } from "vitest";
import { healthNotice } from "./server-health.ts";

describe("healthNotice", () => {
  it("says nothing while the server, its database and (in queue mode) Redis and a worker answer", () => {
    expect(healthNotice({ ok: true, database: { engine: "sqlite", reachable: true }, queue: { mode: "embedded" } })).toBeUndefined();
    expect(healthNotice({ ok: true, database: { engine: "postgres", reachable: true }, queue: { mode: "queue", redis: { reachable: true }, workers: 2 } })).toBeUndefined();
  });

  it("names what blocks the most: the server, then its database, then Redis, then the missing workers", () => {
    expect(healthNotice(undefined)?.kind).toBe("server-unreachable");
    expect(healthNotice({ ok: false, database: { engine: "postgres", reachable: false }, queue: { mode: "queue", redis: { reachable: false }, workers: 0 } })?.kind).toBe("database-unreachable");
    expect(healthNotice({ ok: false, database: { engine: "postgres", reachable: true }, queue: { mode: "queue", redis: { reachable: false }, workers: 0 } })?.kind).toBe("redis-unreachable");
    const idle = healthNotice({ ok: true, database: { engine: "postgres", reachable: true }, queue: { mode: "queue", redis: { reachable: true }, workers: 0 } });
    expect(idle?.kind).toBe("no-workers");
    expect(idle?.text).toContain("bun run weft worker");
  });

  it("never warns about workers in the embedded mode, where the server runs everything itself", () => {
    expect(healthNotice({ ok: true, queue: { mode: "embedded", workers: 0 } })).toBeUndefined();
  });
});
