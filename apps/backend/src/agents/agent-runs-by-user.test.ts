import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { AgentStepTraceSchema } from "@weft/types";
import { RunAnswerSchema, startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const Sent = z.object({ conversationId: z.string() });
const Settled = z.object({ steps: z.array(AgentStepTraceSchema), agent: z.object({ running: z.boolean() }).optional() });
/** An action run has no stored workflow to show. */
const RunAnswer = RunAnswerSchema.partial({ workflow: true });
const AuditLine = z.object({ status: z.string(), runId: z.string().optional(), agentId: z.string().optional(), userId: z.string().optional(), tool: z.string() });

/** Sends the agent a message as `user` and waits for the loop to end; the runs behind its steps. */
async function agentTask(t: TestServer, user: TestUser, message: string, conversationId?: string): Promise<{ conversationId: string; runIds: string[] }> {
  const sent = await user.call("POST", "/api/agents/text-helper/messages", { message, ...(conversationId ? { conversationId } : {}) });
  expect(sent.status).toBe(202);
  const id = Sent.parse(sent.body).conversationId;
  const before = conversationId ? Settled.parse((await t.call("GET", `/api/conversations/${id}`)).body).steps.length : 0;
  const steps = await waitFor(
    async () => {
      const answer = Settled.parse((await t.call("GET", `/api/conversations/${id}`)).body);
      return answer.agent && !answer.agent.running && answer.steps.length > before ? answer.steps.slice(before) : undefined;
    },
    20_000,
    "the agent's loop to end",
  );
  return { conversationId: id, runIds: steps.flatMap((s) => [s.deliberation.runId, ...s.actions.flatMap((a) => (a.runId ? [a.runId] : []))]) };
}

describe("runs an agent causes name the user who sent the message", () => {
  const projectDir = tempDir();
  let t: TestServer;
  let ed: TestUser;
  let mo: TestUser;
  beforeAll(async () => {
    mkdirSync(join(projectDir, "notes"));
    writeFileSync(join(projectDir, "notes", "a.txt"), "hello");
    t = await startTestServer({ examplesDir: EXAMPLES, projectDir });
    ed = await createTestUser(t, "ed", "editor");
    mo = await createTestUser(t, "mo", "editor");
  });
  afterAll(() => t.stop());

  it("the deliberation and action runs carry createdBy, and their tool calls the user in the audit log; the next message is the next user's", async () => {
    const first = await agentTask(t, ed, "Please list the files in the folder notes");
    const second = await agentTask(t, mo, "Please uppercase this text: hello weft", first.conversationId);
    for (const [task, user] of [
      [first, ed],
      [second, mo],
    ] as const) {
      expect(task.runIds.length).toBeGreaterThanOrEqual(2);
      for (const runId of task.runIds) {
        const { run } = RunAnswer.parse((await t.call("GET", `/api/runs/${runId}`)).body);
        expect({ runId, createdBy: run.createdBy }).toEqual({ runId, createdBy: user.id });
        await expect(t.server.storage.runs.get(runId)).resolves.toMatchObject({ createdBy: user.id });
      }
    }
    // The first task listed a folder through the tool host: its audit records name ed.
    const auditFile = join(t.dataDir, "audit", "tools.jsonl");
    expect(existsSync(auditFile)).toBe(true);
    const records = readFileSync(auditFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => AuditLine.parse(JSON.parse(line)));
    const ofFirst = records.filter((r) => r.runId !== undefined && first.runIds.includes(r.runId));
    expect(ofFirst.map((r) => [r.status, r.tool, r.agentId, r.userId])).toEqual([
      ["started", "fs.list", "text-helper", ed.id],
      ["completed", "fs.list", "text-helper", ed.id],
    ]);
  });
});
