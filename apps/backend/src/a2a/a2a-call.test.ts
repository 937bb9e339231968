import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConversationSchema } from "@weft/types";
import { StartedRunSchema } from "../testing/answers.ts";
import { startTestServer, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ConversationListSchema = z.object({ conversations: z.array(ConversationSchema) });

/** Weft calling Weft: `local` runs the a2a:call node, `remote` serves its agents over A2A. Both are loopback. */
let local: TestServer;
let remote: TestServer;
let remoteEditor: TestUser;
let cardUrl: string;
beforeAll(async () => {
  [local, remote] = await Promise.all([startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES }), startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES })]);
  remoteEditor = await createTestUser(remote, "remy", "editor");
  cardUrl = `${remote.url}/a2a/text-helper/.well-known/agent-card.json`;
  const token = remoteEditor.bearer.authorization.replace(/^Bearer /, "");
  expect((await local.call("POST", "/api/credentials", { name: "remote-weft", kind: "bearer", secret: token, hosts: [remote.url], roles: ["owner", "editor"] })).status).toBe(201);
});
afterAll(async () => {
  await Promise.all([local.stop(), remote.stop()]);
});

const remoteConversations = async () => ConversationListSchema.parse((await remote.call("GET", "/api/agents/text-helper/conversations?limit=500")).body).conversations.length;

async function callRemote(id: string) {
  const workflow = { id, name: id, nodes: [{ id: "ask", type: "a2a:call", inputs: { cardUrl, credential: "remote-weft", message: "Please uppercase this text: hello weft" } }], edges: [] };
  expect((await local.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  const started = await local.call("POST", `/api/workflows/${id}/runs`, {});
  expect(started.status).toBe(202);
  const answer = await waitForRun(local, StartedRunSchema.parse(started.body).runId, 180_000);
  return answer.observations.find((o) => o.nodeId === "ask")?.outputs ?? {};
}

describe("a2a:call against a second Weft", () => {
  it("is refused without an owner's rule for the loopback address, and the remote receives nothing", { timeout: 240_000 }, async () => {
    expect((await local.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
    const before = await remoteConversations();
    const outputs = await callRemote("a2a-unruled");
    expect(outputs.ok).toBe(false);
    expect((outputs.result as { error?: { code: string } }).error?.code).toBe("E_PRIVATE_ADDRESS");
    expect(await remoteConversations()).toBe(before);
  });

  it("with the owner's rule: the remote agent's answer, its task id and state completed; the remote stored the conversation", { timeout: 240_000 }, async () => {
    const rules = [{ action: "allow", tool: "http.request", target: `${remote.url}/**` }];
    expect((await local.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules })).status).toBe(200);
    const before = await remoteConversations();
    const outputs = await callRemote("a2a-ruled");
    expect(outputs).toMatchObject({ ok: true, state: "completed" });
    expect(outputs.text).toContain("HELLO WEFT");
    expect(outputs.taskId).toEqual(expect.any(String));
    expect(outputs.taskId).not.toBe("");
    expect(await remoteConversations()).toBe(before + 1);
    // The remote task's context is the remote conversation.
    expect((await remote.call("GET", `/api/conversations/${String(outputs.contextId)}`)).status).toBe(200);
  });
});
