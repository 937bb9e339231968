import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { call } from "../testing/http-call.ts";
import { createTestUser } from "../testing/users.ts";
import { TestWsClient, messageType } from "../testing/ws-client.ts";
import { WS_SIGNED_OUT, WS_TOO_MANY_MESSAGES } from "./ws-access.ts";

const TokenList = z.object({ tokens: z.array(z.object({ id: z.string() })) });
const ErrorFrame = z.object({ type: z.literal("error"), error: z.object({ code: z.string() }) });

let t: TestServer;
let runId: string;
beforeAll(async () => {
  // Small limits, so a flood is told apart from an editor resubscribing in a test's time on a busy machine.
  t = await startTestServer({ wsRateLimits: { burst: 5, perSecond: 1, maxRefusedInRow: 20, recheckMs: 60_000 } });
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
  runId = StartedRunSchema.parse((await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: "bees" } })).body).runId;
  await waitForRun(t, runId);
});
afterAll(() => t.stop());

const closedWith = (ws: TestWsClient, what: string) => ws.waitFor((c) => (c.closed ? c.closeCode : undefined), 10_000, what);

describe("an open /ws when the accounts change", () => {
  it("is closed as soon as its personal token is revoked, without waiting for its next message", async () => {
    const ann = await createTestUser(t, "ann", "viewer");
    const ws = await TestWsClient.connect(t.url, ann.bearer);
    ws.subscribe(runId);
    await ws.waitForRunEnd(runId);
    const [token] = TokenList.parse((await ann.call("GET", "/api/auth/tokens")).body).tokens;
    expect((await ann.call("DELETE", `/api/auth/tokens/${token.id}`)).status).toBe(200);
    expect(await closedWith(ws, "the revoked token's socket to close")).toBe(WS_SIGNED_OUT);
  });

  it("an owner's password reset revokes the user's personal tokens and sessions and closes their sockets", async () => {
    const bea = await createTestUser(t, "bea", "editor");
    const byToken = await TestWsClient.connect(t.url, bea.bearer);
    const bySession = await TestWsClient.connect(t.url, bea.session);
    // Another user's socket is not touched.
    const cat = await createTestUser(t, "cat", "viewer");
    const bystander = await TestWsClient.connect(t.url, cat.bearer);
    expect((await call(t.url, "GET", "/api/workflows", undefined, bea.bearer)).status).toBe(200);

    expect((await t.call("PUT", `/api/users/${bea.id}`, { password: "a brand new password" })).status).toBe(200);

    expect((await call(t.url, "GET", "/api/workflows", undefined, bea.bearer)).status).toBe(401);
    expect((await call(t.url, "GET", "/api/workflows", undefined, bea.session)).status).toBe(401);
    expect(TokenList.parse((await t.call("GET", `/api/users/${bea.id}/tokens`)).body).tokens).toEqual([]);
    expect(await closedWith(byToken, "the token socket to close")).toBe(WS_SIGNED_OUT);
    expect(await closedWith(bySession, "the session socket to close")).toBe(WS_SIGNED_OUT);
    bystander.subscribe(runId);
    expect((await bystander.waitForRunEnd(runId)).length).toBeGreaterThan(0);
    expect(bystander.closed).toBe(false);
    bystander.close();
  });

  it("a user's own password change keeps their tokens (each can be revoked on its own)", async () => {
    const dan = await createTestUser(t, "dan", "viewer");
    expect((await dan.call("PUT", "/api/auth/password", { currentPassword: dan.password, newPassword: "another long password" })).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, dan.bearer)).status).toBe(200);
  });

  it("is closed when its user is deleted", async () => {
    const eve = await createTestUser(t, "eve", "viewer");
    const ws = await TestWsClient.connect(t.url, eve.session);
    expect((await t.call("DELETE", `/api/users/${eve.id}`)).status).toBe(200);
    expect(await closedWith(ws, "the deleted user's socket to close")).toBe(WS_SIGNED_OUT);
  });
});

describe("a socket's message rate", () => {
  it("refuses a flood from one socket with error frames and closes it, while another socket keeps working", async () => {
    const flooder = await TestWsClient.connect(t.url);
    const other = await TestWsClient.connect(t.url);
    for (let i = 0; i < 200; i++) flooder.subscribe(`flood-${i}`);
    expect(await closedWith(flooder, "the flooding socket to close")).toBe(WS_TOO_MANY_MESSAGES);
    const refused = flooder.messages.filter((m) => messageType(m) === "error" && ErrorFrame.parse(m).error.code === "TOO_MANY_MESSAGES");
    expect(refused.length).toBeGreaterThanOrEqual(20);
    // The flood reached the gateway only up to the bucket: far fewer answers about unknown streams than messages sent.
    const served = flooder.messages.filter((m) => messageType(m) !== "error" || ErrorFrame.parse(m).error.code !== "TOO_MANY_MESSAGES");
    expect(served.length).toBeLessThan(200 - 20);
    other.subscribe(runId);
    expect((await other.waitForRunEnd(runId)).at(-1)?.type).toBe("run.completed");
    other.close();
  });
});
