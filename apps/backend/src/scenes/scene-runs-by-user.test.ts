import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SceneTimelineSchema } from "@weft/types";
import { RunAnswerSchema, startTestServer, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { until } from "../testing/until.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
/** An action run has no stored workflow to show. */
const RunAnswer = RunAnswerSchema.partial({ workflow: true });

let t: TestServer;
let ed: TestUser;
beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
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
});
