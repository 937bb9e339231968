import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneTimelineSchema } from "@weft/types";
import { RunAnswerSchema, startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { until } from "../testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
/** An action run has no stored workflow to show. */
const RunAnswer = RunAnswerSchema.partial({ workflow: true });
const AuditLine = z.object({ status: z.string(), runId: z.string().optional(), userId: z.string().optional(), tool: z.string() });
const projectDir = tempDir();

let t: TestServer;
let ed: TestUser;
beforeAll(async () => {
  mkdirSync(join(projectDir, "notes"));
  writeFileSync(join(projectDir, "notes", "a.txt"), "hello");
  t = await startTestServer({ examplesDir: EXAMPLES, projectDir });
  ed = await createTestUser(t, "ed", "editor");
});
afterAll(() => t.stop());

describe("runs a scene's agents cause", () => {
  it("name the user who started the scene's session, whoever sent the message that woke them", async () => {
    expect((await ed.call("POST", "/api/scenes/notice-board/start")).status).toBe(200);
    // The owner writes to the scene; the session is still ed's.
    expect((await t.call("POST", "/api/scenes/notice-board/messages", { to: "scribe", text: 'Post the note "The bridge is open"' })).status).toBe(202);
    const steps = await until("Herald's answer", async () => {
      const timeline = SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/notice-board/timeline")).body);
      return timeline.steps.some((s) => s.instanceId === "herald" && s.trace.status === "completed") ? timeline.steps : undefined;
    });
    const runIds = steps.flatMap((s) => [s.trace.deliberation.runId, ...s.trace.actions.flatMap((a) => (a.runId ? [a.runId] : []))]);
    expect(runIds.length).toBeGreaterThanOrEqual(2);
    for (const runId of runIds) {
      const run = await until(`run ${runId} to be stored`, async () => {
        const res = await t.call("GET", `/api/runs/${runId}`);
        return res.status === 200 ? RunAnswer.parse(res.body).run : undefined;
      });
      expect({ runId, createdBy: run.createdBy }).toEqual({ runId, createdBy: ed.id });
    }
    await t.call("POST", "/api/scenes/notice-board/stop");
  });

  it("tool calls the scene's agents make name the user who started the session in the audit log", async () => {
    const scene = { id: "lister", name: "Lister", agents: [{ instanceId: "helper", profileId: "text-helper" }] };
    expect((await t.call("POST", "/api/scenes", { scene })).status).toBe(201);
    expect((await ed.call("POST", "/api/scenes/lister/start")).status).toBe(200);
    expect((await t.call("POST", "/api/scenes/lister/messages", { to: "helper", text: "Please list the files in the folder notes" })).status).toBe(202);
    const steps = await until("the helper's answer", async () => {
      const timeline = SceneTimelineSchema.parse((await t.call("GET", "/api/scenes/lister/timeline")).body);
      return timeline.steps.some((s) => s.instanceId === "helper" && s.trace.status === "completed") ? timeline.steps : undefined;
    });
    const runIds = steps.flatMap((s) => s.trace.actions.flatMap((a) => (a.runId ? [a.runId] : [])));
    const auditFile = join(t.dataDir, "audit", "tools.jsonl");
    const calls = await until("the audit records of the listing", async () => {
      if (!existsSync(auditFile)) return undefined;
      const records = readFileSync(auditFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => AuditLine.parse(JSON.parse(line)))
        .filter((r) => r.runId !== undefined && runIds.includes(r.runId));
      return records.length >= 2 ? records : undefined;
    });
    expect(calls.map((r) => [r.status, r.tool, r.userId])).toEqual([
      ["started", "fs.list", ed.id],
      ["completed", "fs.list", ed.id],
    ]);
    await t.call("POST", "/api/scenes/lister/stop");
  });
});
