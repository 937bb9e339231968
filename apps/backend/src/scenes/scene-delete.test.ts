import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneStateViewSchema } from "@weft/types";
import { openSqliteStorage, requireSqlite, type Storage } from "../testing/storage.ts";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { MIGRATIONS } from "../schema.ts";

/** The board's world: the note on it, if the board is there. */
const BoardWorldSchema = z.object({ board: z.object({ note: z.unknown() }).optional() });

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});
async function serve(dataDir: string): Promise<TestServer> {
  const t = await startTestServer({ examplesDir: EXAMPLES, dataDir });
  servers.push(t);
  return t;
}

/** The scene's rows in each runtime table. */
function rows(storage: Storage, sceneId: string): Record<string, number> {
  const count = (table: string) => (requireSqlite(storage.sql, "test").db.query(`SELECT count(*) AS n FROM ${table} WHERE scene_id = ?`).get(sceneId) as { n: number }).n;
  return { scene_states: count("scene_states"), scene_log: count("scene_log"), scene_sessions: count("scene_sessions") };
}
const none = { scene_states: 0, scene_log: 0, scene_sessions: 0 };

const board = {
  id: "board",
  name: "Board",
  agents: [
    { instanceId: "scribe", profileId: "scribe" },
    { instanceId: "herald", profileId: "herald" },
  ],
  initialWorldState: { board: { note: null } },
};

describe("deleting a scene", () => {
  it("stops it while it runs and removes its state, log and session; a scene made again with its id starts clean", async () => {
    const t = await serve(tempDir());
    expect((await t.call("POST", "/api/scenes", board)).status).toBe(201);
    const started = SceneStateViewSchema.parse((await t.call("POST", "/api/scenes/board/start")).body);
    await t.call("POST", "/api/scenes/board/messages", { to: "scribe", text: 'Post the note "Soon gone"' });
    await until("the note", async () =>
      BoardWorldSchema.parse(SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/board/state")).body).world).board?.note === "Soon gone" ? true : undefined,
    );
    expect(rows(t.server.storage, "board")).toMatchObject({ scene_states: 1, scene_sessions: 1 });

    expect((await t.call("DELETE", "/api/scenes/board")).status).toBe(200);
    expect(rows(t.server.storage, "board")).toEqual(none);
    expect((await t.call("GET", "/api/scenes/board/state")).status).toBe(404);
    // Its runtime is gone with it.
    expect(ErrorBodySchema.parse((await t.call("POST", "/api/scenes/board/messages", { to: "scribe", text: "hello?" })).body).error).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("not running"),
    });

    expect((await t.call("POST", "/api/scenes", board)).status).toBe(201);
    const fresh = SceneStateViewSchema.parse((await t.call("GET", "/api/scenes/board/state")).body);
    expect(fresh).toMatchObject({ live: false, status: "idle", world: { board: { note: null } } });
    expect(fresh.sessionId).toBeUndefined();
    expect((await t.call("GET", "/api/scenes/board/timeline")).body).toMatchObject({ entries: [], steps: [] });
    // The agents' conversations of the deleted session stay readable.
    const conversationId = started.agents[0]?.conversationId;
    expect((await t.call("GET", `/api/conversations/${conversationId}`)).status).toBe(200);
    expect((await t.call("DELETE", "/api/scenes/board")).status).toBe(200);
  });

  it("deleted while the server was down (e.g. by a Builder apply), its saved state is removed on the next start", async () => {
    const dataDir = tempDir();
    const first = await serve(dataDir);
    expect((await first.call("POST", "/api/scenes", board)).status).toBe(201);
    await first.call("POST", "/api/scenes/board/start");
    await first.stop();

    const storage = await openSqliteStorage(dataDir, undefined, MIGRATIONS);
    expect(rows(storage, "board")).toMatchObject({ scene_states: 1, scene_sessions: 1 });
    expect(await storage.scenes.delete("board")).toBe(true);
    storage.close();

    const second = await serve(dataDir);
    expect(rows(second.server.storage, "board")).toEqual(none);
    expect((await second.call("GET", "/api/scenes/notice-board/state")).status).toBe(200);
  });
});
