import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { streamedAction, streamedReply } from "../../../../bench/support/instant-llm.ts";
import { countVisitThenAnnounce, scriptedModel } from "./testing/scripted-model.ts";
import { RunEventSchema, SceneLogEntrySchema, SceneStateViewSchema, type RunEvent, type SceneLogEntry, type SceneRuntimeState } from "@weft/types";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { until } from "../testing/until.ts";
import { readPostgresSceneState, readSqliteSceneState } from "./testing/read-scene-state.ts";

const ProfileAnswerSchema = z.object({ profile: z.object({ id: z.string() }) });
const EventsPageSchema = z.object({ events: z.array(RunEventSchema), hasMore: z.boolean() });
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** The town agent's model (see `countVisitThenAnnounce`); its second request ever hangs: the server is killed while waiting for it. */
const townModel = () => scriptedModel(countVisitThenAnnounce, 2);

/**
 * An agent's model that appends a line to a file in @project with a tool, then (once it has seen
 * the call's observation) answers. Its second request ever hangs: the server is killed after the
 * call's step was committed, while the deliberation waits for its next answer. A deliberation redone
 * from scratch after the restart would run the call again: the second line this test must not see.
 */
function fileModel() {
  return scriptedModel(
    (messages) => (messages.at(-1)?.content?.startsWith("Observation:") ? streamedReply("Noted.") : streamedAction("fs_write", { path: "@project/visits.txt", content: "visit;", mode: "append" })),
    2,
  );
}

/** Where the server keeps its data: a SQLite file in its folder, or a PostgreSQL database. */
interface Engine {
  name: "sqlite" | "postgres";
  env(): Promise<Record<string, string>>;
  saved(dataDir: string): Promise<{ state: SceneRuntimeState | undefined; log: SceneLogEntry[] }>;
}

const parse = (state: SceneRuntimeState | undefined, log: Array<{ data: string }>) => ({
  state,
  log: log.map((r) => SceneLogEntrySchema.parse(JSON.parse(r.data))),
});

const sqlite: Engine = {
  name: "sqlite",
  env: async () => ({}),
  async saved(dataDir) {
    const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
    try {
      return parse(readSqliteSceneState(db, "town"), db.query("SELECT data FROM scene_log WHERE scene_id = 'town' ORDER BY seq").all() as Array<{ data: string }>);
    } finally {
      db.close();
    }
  },
};

let cluster: TestPostgres | undefined;
let databaseUrl = "";
const postgres: Engine = {
  name: "postgres",
  async env() {
    cluster ??= await startPostgres();
    databaseUrl = await createTestDatabase(cluster.url);
    cleanup.unshift(() => cluster?.stop());
    return { WEFT_DATABASE_URL: databaseUrl };
  },
  async saved() {
    const sql = new SQL(databaseUrl, { max: 1 });
    try {
      const exists = (await sql`SELECT to_regclass('scene_states') IS NOT NULL AS present`) as Array<{ present: boolean }>;
      if (!exists[0]?.present) return { state: undefined, log: [] };
      return parse(await readPostgresSceneState(sql, "town"), (await sql`SELECT data FROM scene_log WHERE scene_id = 'town' ORDER BY seq`) as Array<{ data: string }>);
    } finally {
      await sql.close();
    }
  },
};

async function serve(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  const child = await spawnServer(dataDir, { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_DEMO_LLM: "off", ...env });
  cleanup.push(async () => {
    child.proc.kill("SIGKILL");
    await child.proc.exited;
  });
  return child;
}

async function stream(child: ChildServer): Promise<RunEvent[]> {
  return EventsPageSchema.parse((await child.call("GET", "/api/streams/town/events?limit=5000")).body).events;
}

const ConversationAnswerSchema = z.object({ messages: z.array(z.object({ role: z.string(), content: z.string().nullable() })) });

/** The user messages of the scene agent's conversation. */
async function userMessages(child: ChildServer): Promise<string[]> {
  const view = SceneStateViewSchema.parse((await child.call("GET", "/api/scenes/town/state")).body);
  const conversationId = view.agents[0]?.conversationId;
  if (!conversationId) throw new Error("the scene's agent has no conversation");
  const { messages } = ConversationAnswerSchema.parse((await child.call("GET", `/api/conversations/${conversationId}`)).body);
  return messages.flatMap((m) => (m.role === "user" && m.content !== null && !m.content.startsWith("Observation:") ? [m.content] : []));
}

async function settled(child: ChildServer, saved: () => Promise<{ log: SceneLogEntry[] }>): Promise<void> {
  await until("the resumed clerk to finish", async () => {
    const s = SceneStateViewSchema.parse((await child.call("GET", "/api/scenes/town/state")).body);
    return s.agents.every((a) => a.status === "idle" && a.inFlight === null && a.queue.length === 0) && (await saved()).log.some((e) => e.kind === "deliberation.finished") ? s : undefined;
  });
}

const worldChanges = (events: RunEvent[]) => events.flatMap((e) => (e.type === "world.changed" ? [`${e.path}=${JSON.stringify(e.value)}`] : []));
const loggedChanges = (log: SceneLogEntry[]) => log.flatMap((e) => (e.kind === "world.changed" ? [`${e.change.path}=${JSON.stringify(e.change.after)}`] : []));

describe.each([sqlite, postgres])("a scene killed with SIGKILL mid-deliberation ($name)", (engine) => {
  it("applies no world write twice after the restart, and its event stream holds exactly the committed changes", async () => {
    const env = await engine.env();
    const saved = (dir: string) => engine.saved(dir);
    const dataDir = tempDir("weft-scene-once-");
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const model = townModel();
    cleanup.push(() => model.stop());

    let child = await serve(dataDir, env);
    const llm = ProfileAnswerSchema.parse((await child.call("POST", "/api/llm-profiles", { name: "town", baseUrl: model.baseUrl, model: "m", maxRetries: 0 })).body);
    expect(
      (
        await child.call("POST", "/api/agents", {
          id: "clerk",
          name: "clerk",
          deliberationWorkflowId: "agent-deliberation",
          llmProfileId: llm.profile.id,
          tools: ["scene:world-set", "scene:publish-event"],
          maxSteps: 4,
        })
      ).status,
    ).toBe(201);
    expect((await child.call("POST", "/api/scenes", { id: "town", name: "Town", agents: [{ instanceId: "clerk", profileId: "clerk" }] })).status).toBe(201);
    expect((await child.call("POST", "/api/scenes/town/start")).status).toBe(200);
    expect((await child.call("POST", "/api/scenes/town/messages", { to: "clerk", text: "Count the visitors." })).status).toBe(202);

    // Killed once the first step's write is committed and the model is asked for the second step.
    await until("the first write to be committed while the clerk still deliberates", async () => {
      const { state } = await saved(dataDir);
      return state?.mailboxes.clerk?.inFlight && model.requests() === 2 && (state.world.document.visits as Record<string, unknown> | undefined)?.r1 === 1 ? state : undefined;
    });
    child.proc.kill("SIGKILL");
    await child.proc.exited;
    const before = await saved(dataDir);
    expect(loggedChanges(before.log)).toEqual(["visits.r1=1"]);

    child = await serve(dataDir, env);
    // The stream after the crash holds exactly what the saved state had: nothing stored that was not committed with it.
    expect(worldChanges(await stream(child))).toEqual(loggedChanges((await saved(dataDir)).log).slice(0, 1));
    await settled(child, () => saved(dataDir));
    expect(await userMessages(child)).toEqual(["Count the visitors."]);
    await child.call("POST", "/api/scenes/town/stop");

    const after = await saved(dataDir);
    // The first step's answer came from the record (not asked again) and its write was not made twice.
    expect(loggedChanges(after.log)).toEqual(["visits.r1=1"]);
    expect(after.state?.world.document).toEqual({ visits: { r1: 1 } });
    expect(after.log.filter((e) => e.kind === "event" && e.topic === "town.counted")).toHaveLength(1);
    expect(after.log.filter((e) => e.kind === "llm.output")).toHaveLength(3);
    expect(model.requests()).toBe(4);
    // Every committed change is in the stream, once, in order, without gaps.
    const events = await stream(child);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(worldChanges(events)).toEqual(loggedChanges(after.log));
    expect(events.filter((e) => e.type === "scene.event" && e.topic === "town.counted")).toHaveLength(1);
  });

  it("does not run a committed tool call again after the restart: the file has its line once, the conversation the trigger once", async () => {
    const env = await engine.env();
    const saved = (dir: string) => engine.saved(dir);
    const dataDir = tempDir("weft-scene-once-");
    const projectDir = tempDir("weft-scene-once-project-");
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanup.push(() => rmSync(projectDir, { recursive: true, force: true }));
    const file = join(projectDir, "visits.txt");
    const model = fileModel();
    cleanup.push(() => model.stop());
    const withProject = { ...env, WEFT_PROJECT_DIR: projectDir };

    let child = await serve(dataDir, withProject);
    const llm = ProfileAnswerSchema.parse((await child.call("POST", "/api/llm-profiles", { name: "town", baseUrl: model.baseUrl, model: "m", maxRetries: 0 })).body);
    expect(
      (await child.call("POST", "/api/agents", { id: "clerk", name: "clerk", deliberationWorkflowId: "agent-deliberation", llmProfileId: llm.profile.id, tools: ["fs:write"], maxSteps: 4 })).status,
    ).toBe(201);
    expect((await child.call("POST", "/api/scenes", { id: "town", name: "Town", agents: [{ instanceId: "clerk", profileId: "clerk" }] })).status).toBe(201);
    expect((await child.call("POST", "/api/scenes/town/start")).status).toBe(200);
    expect((await child.call("POST", "/api/scenes/town/messages", { to: "clerk", text: "Note the visit." })).status).toBe(202);

    // Killed once the call has written its line, its step is committed and the model is asked for the next step.
    await until("the file write to be committed while the clerk still deliberates", async () => {
      const { state, log } = await saved(dataDir);
      const written = existsSync(file) && readFileSync(file, "utf8") === "visit;";
      return state?.mailboxes.clerk?.inFlight && model.requests() === 2 && written && log.some((e) => e.kind === "llm.output") ? state : undefined;
    });
    child.proc.kill("SIGKILL");
    await child.proc.exited;

    child = await serve(dataDir, withProject);
    await settled(child, () => saved(dataDir));
    // The call ran once: after the restart the clerk went on from its recorded step and only asked for its answer.
    expect(readFileSync(file, "utf8")).toBe("visit;");
    expect(model.requests()).toBe(3);
    expect(await userMessages(child)).toEqual(["Note the visit."]);
    const after = await saved(dataDir);
    expect(after.log.filter((e) => e.kind === "action.completed").map((e) => e.kind === "action.completed" && [e.toolId, e.ok])).toEqual([["fs:write", true]]);
    expect(after.log.filter((e) => e.kind === "deliberation.finished").map((e) => e.kind === "deliberation.finished" && e.ok)).toEqual([true]);
    // The step done before the crash is not announced again: one observation of the call in the stream.
    const events = await stream(child);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === "agent.observation").map((e) => e.type === "agent.observation" && e.ok)).toEqual([true]);
    await child.call("POST", "/api/scenes/town/stop");
  });
});
