import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../apps/backend/src/testing/redis-server.ts";
import { spawnWorker, type ChildWorker } from "../../apps/backend/src/queue/testing/child-worker.ts";
import { poll } from "./support/poll.ts";
import { seriousInBothThemes } from "./support/axe.ts";
import { startWeft, type Weft } from "./support/weft.ts";

/**
 * The editor of an API process in the queue mode (real Redis, a real `weft worker` sharing its data
 * folder) says when nothing would take its runs: no worker connected, or Redis gone.
 */
describe("the server health notice in the queue mode", () => {
  let redis: TestRedis;
  let weft: Weft;
  let worker: ChildWorker | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    weft = await startWeft({ redisUrl: redis.url });
  }, 60_000);

  afterAll(async () => {
    worker?.proc.kill("SIGKILL");
    await worker?.proc.exited;
    await weft?.close();
    await redis?.stop();
  });

  const banner = () => weft.page.getByTestId("health-banner");

  it("says no worker is connected, goes once one starts, and says so again when Redis is gone", async () => {
    await weft.page.goto(weft.url);
    await poll(() => banner().getAttribute("data-kind")).toBe("no-workers");
    expect(await banner().innerText()).toContain("No worker is connected");
    expect(await seriousInBothThemes(weft.page)).toEqual({});

    worker = await spawnWorker({ WEFT_REDIS_URL: redis.url, WEFT_DATA_DIR: weft.dataDir });
    await poll(() => banner().getAttribute("data-kind"), { timeout: 10_000 }).toBe("ok");
    expect(await banner().innerText()).toBe("");

    await redis.stop();
    await poll(() => banner().getAttribute("data-kind"), { timeout: 20_000 }).toBe("redis-unreachable");
  }, 60_000);
});
