import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import { SceneStateViewSchema, SceneTimelineSchema, type SceneRuntimeState } from "@weft/types";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";
import { readSqliteSceneState } from "./testing/read-scene-state.ts";

/** POST /api/llm-profiles: the new profile, as far as this test reads it. */
const ProfileAnswerSchema = z.object({ profile: z.object({ id: z.string() }) });

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const say = (text: string): ScriptedTurn => ({ kind: "text", chunks: [text] });
const act = (tool: string, params: Record<string, string>): ScriptedTurn =>
  say(
    `Doing it.\n<ACTION>\n  <${tool}>\n${Object.entries(params)
      .map(([k, v]) => `    <${k}>${v}</${k}>`)
      .join("\n")}\n  </${tool}>\n</ACTION>`,
  );

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** The scene state as the server last saved it, read straight from its SQLite file. */
function savedState(dataDir: string, sceneId: string): SceneRuntimeState | undefined {
  const db = new Database(join(dataDir, "weft.sqlite"), { readonly: true });
  try {
    return readSqliteSceneState(db, sceneId);
  } finally {
    db.close();
  }
}

async function serve(dataDir: string): Promise<ChildServer> {
  const child = await spawnServer(dataDir, { WEFT_EXAMPLES_DIR: EXAMPLES, WEFT_DEMO_LLM: "off" });
  cleanup.push(async () => {
    child.proc.kill("SIGKILL");
    await child.proc.exited;
  });
  return child;
}

describe("a scene across a server crash", () => {
  it("killed while an agent deliberates, the restarted server resumes the scene where it was and finishes the work", async () => {
    const dataDir = tempDir("weft-scene-crash-");
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const servers: Record<string, ScriptedLlmServer> = {
      writer: await startScriptedLlmServer({
        turns: [act("scene_world_set", { path: "forecast", value: "sunny" }), act("scene_publish_event", { topic: "weather.reported", payload: '"see forecast"' }), say("Reported.")],
      }),
      // The first answer never comes: the server is killed while the reader waits for it.
      reader: await startScriptedLlmServer({
        turns: [{ ...say("too late"), delayMs: 60_000 }, act("scene_world_get", { path: "forecast" }), act("scene_private_set", { path: "heard", value: "sunny" }), say("The forecast is sunny.")],
      }),
    };
    for (const s of Object.values(servers)) cleanup.push(() => s.stop());

    let child = await serve(dataDir);
    for (const id of ["writer", "reader"]) {
      const llm = await child.call("POST", "/api/llm-profiles", { name: `${id}-llm`, baseUrl: servers[id]!.baseUrl, model: servers[id]!.model, maxRetries: 0 });
      expect(llm.status).toBe(201);
      const tools = id === "writer" ? ["scene:world-set", "scene:publish-event"] : ["scene:world-get", "scene:private-set"];
      const agent = await child.call("POST", "/api/agents", {
        id,
        name: id,
        deliberationWorkflowId: "agent-deliberation",
        llmProfileId: ProfileAnswerSchema.parse(llm.body).profile.id,
        tools,
        subscribedEvents: id === "reader" ? ["weather.*"] : [],
      });
      expect(agent.status).toBe(201);
    }
    const scene = {
      id: "relay",
      name: "Relay",
      agents: [
        { instanceId: "writer", profileId: "writer" },
        { instanceId: "reader", profileId: "reader" },
      ],
    };
    expect((await child.call("POST", "/api/scenes", scene)).status).toBe(201);
    expect(SceneStateViewSchema.parse((await child.call("POST", "/api/scenes/relay/start")).body).status).toBe("running");
    expect((await child.call("POST", "/api/scenes/relay/messages", { to: "writer", text: "Report the weather." })).status).toBe(202);

    await until("the reader's deliberation to be saved as in flight", () => {
      const saved = savedState(dataDir, "relay");
      return saved?.mailboxes.reader?.inFlight && saved.mailboxes.writer?.inFlight === null && saved.world.document.forecast === "sunny" ? saved : undefined;
    });
    expect(servers.reader!.chatBodies()).toHaveLength(1);
    child.proc.kill("SIGKILL");
    await child.proc.exited;

    child = await serve(dataDir);
    const done = await until("the resumed reader to finish", async () => {
      const s = SceneStateViewSchema.parse((await child.call("GET", "/api/scenes/relay/state")).body);
      return s.agents.find((a) => a.instanceId === "reader")?.privateState.heard === "sunny" && s.agents.every((a) => a.status === "idle" && a.inFlight === null) ? s : undefined;
    });
    expect(done).toMatchObject({ status: "running", live: true, world: { forecast: "sunny" } });
    expect(servers.reader!.chatBodies()).toHaveLength(4);
    expect(servers.writer!.chatBodies()).toHaveLength(3);

    const timeline = SceneTimelineSchema.parse((await child.call("GET", "/api/scenes/relay/timeline")).body);
    expect(timeline.entries.map((e) => e.seq)).toEqual(timeline.entries.map((_, i) => i));
    const restored = timeline.entries.findIndex((e) => e.kind === "status" && e.reason?.code === "RESTORED");
    expect(restored).toBeGreaterThan(0);
    expect(timeline.entries.slice(restored).find((e) => e.kind === "deliberation.started")).toMatchObject({ instanceId: "reader" });
    expect(timeline.entries.filter((e) => e.kind === "world.changed")).toHaveLength(1);
    expect(timeline.steps.filter((s) => s.instanceId === "reader").at(-1)?.trace.responseText).toBe("The forecast is sunny.");
  });
});
