import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startRedis, type TestRedis } from "../testing/redis-server.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";
import { TestWsClient } from "../testing/ws-client.ts";
import { WS_SIGNED_OUT } from "../auth/ws-access.ts";

const TokenList = z.object({ tokens: z.array(z.object({ id: z.string() })) });

/** Two API processes' servers (in this process) on one PostgreSQL and one Redis, as queue mode deploys them. */
describe("account changes across API processes", () => {
  let redis: TestRedis;
  let cluster: TestPostgres;
  let apiA: TestServer;
  let apiB: TestServer;

  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startPostgres();
    const databaseUrl = await createTestDatabase(cluster.url);
    const shared = { redisUrl: redis.url, databaseUrl, secret: "account-signal-test-secret", demoLlm: false };
    apiA = await startTestServer(shared);
    apiB = await startTestServer(shared);
  });

  afterAll(async () => {
    await apiA?.stop();
    await apiB?.stop();
    await redis?.stop();
    await cluster?.stop();
  });

  it("a token revoked on one API process closes the socket it opened on another at once", async () => {
    const ann = await createTestUser(apiA, "ann", "viewer");
    const onB = await TestWsClient.connect(apiB.url, ann.bearer);
    const [token] = TokenList.parse((await ann.call("GET", "/api/auth/tokens")).body).tokens;
    expect((await ann.call("DELETE", `/api/auth/tokens/${token.id}`)).status).toBe(200);
    // No message is sent on the socket: the other process is told, and checks it against the shared database.
    expect(await onB.waitFor((c) => (c.closed ? c.closeCode : undefined), 60_000, "the socket on the other process to close")).toBe(WS_SIGNED_OUT);
  });
});
