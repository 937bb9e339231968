import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileSceneStateStore, type SceneRuntime } from "../../packages/agent-runtime/src/index.ts";
import type { AgentTrigger, SceneLogEntry } from "../../packages/types/src/index.ts";
import { action, say } from "../../packages/agent-runtime/src/agent/testing/agent-harness.ts";
import { createSceneHarness, type HarnessAgent, type SceneHarness } from "./support/scene-harness.ts";

let h: SceneHarness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.stop();
  h = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const writer = (
  turns = [say(action("scene_world_set", { path: "forecast", value: "sunny" })), say(action("scene_publish_event", { topic: "weather.reported", payload: '{"path":"forecast"}' })), say("Reported.")],
): HarnessAgent => ({
  instanceId: "writer",
  profile: { tools: ["scene:world-set", "scene:publish-event"] },
  turns,
});
const reader = (turns = [say(action("scene_world_get", { path: "forecast" })), say(action("scene_private_set", { path: "heard", value: "sunny" })), say("The forecast is sunny.")]): HarnessAgent => ({
  instanceId: "reader",
  profile: { tools: ["scene:world-get", "scene:private-set"], subscribedEvents: ["weather.*"] },
  turns,
});
const scene = {
  id: "weather",
  name: "Weather",
  agents: [
    { instanceId: "writer", profileId: "writer" },
    { instanceId: "reader", profileId: "reader" },
  ],
};

function lastUserText(server: { chatBodies(): Record<string, unknown>[] }, index: number): string {
  const messages = server.chatBodies()[index]?.messages as Array<{ role: string; content: string }> | undefined;
  if (!messages) throw new Error(`no request #${index}`);
  return String(messages.at(-1)?.content);
}

describe("agents cooperating in a scene", () => {
  it("the writer sets the world and publishes; the reader is woken, reads it and answers; every output is in the log", async () => {
    h = await createSceneHarness({ scene, agents: [writer(), reader()] });
    h.runtime.start();
    h.runtime.sendMessage("writer", "Report the weather.");
    await h.runtime.whenIdle();

    expect(h.runtime.world.snapshot()).toEqual({ forecast: "sunny" });
    expect(h.runtime.privateState("reader").snapshot()).toEqual({ heard: "sunny" });
    const readerServer = h.servers.get("reader")!;
    expect(lastUserText(readerServer, 0)).toBe('EVENT\n- topic: weather.reported\n- from: writer\n- payload: {"path":"forecast"}');
    expect(lastUserText(readerServer, 1)).toContain('"sunny"');
    const outputs = h.runtime.log.entries().filter((e) => e.kind === "llm.output");
    const order = outputs.map((e) => (e.kind === "llm.output" ? `${e.instanceId}#${e.step}` : ""));
    // The writer's last answer and the reader's first may come in either order: the reader is woken by the publish at the writer's step 2.
    expect(order.filter((o) => o.startsWith("writer"))).toEqual(["writer#1", "writer#2", "writer#3"]);
    expect(order.filter((o) => o.startsWith("reader"))).toEqual(["reader#1", "reader#2", "reader#3"]);
    expect(order.indexOf("reader#1")).toBeGreaterThan(order.indexOf("writer#2"));
    expect(outputs[order.indexOf("reader#3")]).toMatchObject({ text: "The forecast is sunny." });
    const finished = h.runtime.log.entries().filter((e) => e.kind === "deliberation.finished");
    expect(finished.every((e) => e.kind === "deliberation.finished" && e.ok)).toBe(true);
  });

  it("a replay with the LLM server stopped reproduces the world and private states from the record", async () => {
    h = await createSceneHarness({ scene, agents: [writer(), reader()] });
    h.runtime.start();
    h.runtime.sendMessage("writer", "Report the weather.");
    await h.runtime.whenIdle();
    const log = h.runtime.log.entries();
    for (const server of h.servers.values()) await server.stop();

    const report = await h.replay(log);
    expect(report.divergences).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.messages).toBe(1);
    expect(report.world).toEqual(h.runtime.world.snapshot());
    expect(report.privateStates).toEqual({ writer: h.runtime.privateState("writer").snapshot(), reader: h.runtime.privateState("reader").snapshot() });
  });

  it("a replay whose record does not fit fails loudly instead of asking the provider", async () => {
    h = await createSceneHarness({ scene, agents: [writer(), reader()] });
    h.runtime.start();
    h.runtime.sendMessage("writer", "Report the weather.");
    await h.runtime.whenIdle();
    for (const server of h.servers.values()) await server.stop();
    // Without the writer's final answer the record cannot answer the writer's third request.
    const cut: SceneLogEntry[] = h.runtime.log.entries().filter((e) => !(e.kind === "llm.output" && e.instanceId === "writer" && e.step === 3));
    const report = await h.replay(cut);
    expect(report.ok).toBe(false);
    expect(report.divergences).toHaveLength(1);
    expect(report.divergences[0]).toMatch(/^Agent "writer" asked the LLM for output #3, but the record holds only 2/);
    expect(report.unused).toEqual({});

    // A trigger the record never published (an altered log) is refused too, and not deliberated.
    const altered = h.runtime.log
      .entries()
      .map((e) => (e.kind === "trigger.queued" && e.instanceId === "reader" && e.trigger.kind === "event" ? { ...e, trigger: { ...e.trigger, payload: { path: "elsewhere" } } } : e));
    const second = await h.replay(altered);
    expect(second.ok).toBe(false);
    expect(second.divergences[0]).toMatch(/Agent "reader" took trigger \[event weather\.reported from writer: \{"path":"elsewhere"\}\], but the record holds no such event/);
    expect(second.privateStates.reader).toEqual({});
  });
});

describe("bounds and concurrency", () => {
  it("a storm of agents waking each other stops at the step budget and says why", async () => {
    const volley = (tool: string, topic: string) => Array.from({ length: 8 }, () => [say(action(tool, { topic })), say("sent")]).flat();
    h = await createSceneHarness({
      scene: {
        id: "storm",
        name: "Storm",
        stepBudget: 4,
        agents: [
          { instanceId: "ann", profileId: "ann" },
          { instanceId: "bob", profileId: "bob" },
        ],
      },
      agents: [
        { instanceId: "ann", profile: { tools: ["scene:publish-event"], subscribedEvents: ["game.pong"] }, turns: volley("scene_publish_event", "game.ping") },
        { instanceId: "bob", profile: { tools: ["scene:publish-event"], subscribedEvents: ["game.ping"] }, turns: volley("scene_publish_event", "game.pong") },
      ],
    });
    h.runtime.start();
    h.runtime.sendMessage("ann", "Serve.");
    await h.runtime.whenIdle();

    const status = h.runtime.status();
    expect(status.status).toBe("paused");
    expect(status.reason?.code).toBe("STEP_BUDGET_EXHAUSTED");
    expect(status.budget).toEqual({ limit: 4, used: 4 });
    const started = h.runtime.log.entries().filter((e) => e.kind === "deliberation.started");
    expect(started).toHaveLength(5);
    expect(h.servers.get("ann")!.pending() + h.servers.get("bob")!.pending()).toBe(32 - 10);
  });

  it("three agents updating the same world paths at once lose no update", async () => {
    const worker = (id: string): HarnessAgent => ({
      instanceId: id,
      profile: { tools: ["scene:world-update"] },
      turns: [
        ...Array.from({ length: 3 }, (_, i) => say(action("scene_world_update", { path: "done", operation: "append", value: `${id}-${i}` }))),
        ...Array.from({ length: 3 }, () => say(action("scene_world_update", { path: "count", operation: "increment", amount: "1" }))),
        say("done"),
      ],
    });
    const ids = ["w1", "w2", "w3"];
    h = await createSceneHarness({ scene: { id: "busy", name: "Busy", agents: ids.map((id) => ({ instanceId: id, profileId: id })) }, agents: ids.map(worker) });
    h.runtime.start();
    h.runtime.sendMessage("all", "Work.");
    await h.runtime.whenIdle();

    expect(h.runtime.world.get("count")).toBe(9);
    expect([...(h.runtime.world.get("done") as string[])].sort()).toEqual(ids.flatMap((id) => [0, 1, 2].map((i) => `${id}-${i}`)).sort());
    const changes = h.runtime.log.entries().filter((e) => e.kind === "world.changed");
    expect(changes).toHaveLength(18);
    expect(new Set(changes.map((e) => e.kind === "world.changed" && e.change.agentId))).toEqual(new Set(ids));

    // The replay's agents get their outputs at once, yet their writes follow the recorded interleaving.
    for (const server of h.servers.values()) await server.stop();
    const replay = await h.replay(h.runtime.log.entries());
    expect(replay.divergences).toEqual([]);
    expect(replay.world).toEqual(h.runtime.world.snapshot());
  });
});

describe("restart", () => {
  it("a scene saved while an agent deliberates resumes from its store in a new runtime and finishes the work", async () => {
    const dir = await mkdtemp(join(tmpdir(), "weft-scene-restart-"));
    dirs.push(dir);
    const slow = say(action("scene_world_get", { path: "forecast" }));
    h = await createSceneHarness({
      scene,
      store: new FileSceneStateStore(join(dir, "live")),
      agents: [
        writer(),
        reader([{ ...slow, delayMs: 5000 }, say(action("scene_world_get", { path: "forecast" })), say(action("scene_private_set", { path: "heard", value: "sunny" })), say("The forecast is sunny.")]),
      ],
    });
    h.runtime.start();
    h.runtime.sendMessage("writer", "Report the weather.");
    const readerServer = h.servers.get("reader")!;
    // The writer's last answer races the reader's first request: wait for both, so only the reader is cut off.
    const writerBusy = () => h?.runtime.status().agents.find((a) => a.instanceId === "writer")?.busy;
    while (readerServer.chatBodies().length === 0 || writerBusy()) await new Promise((r) => setTimeout(r, 10));
    await h.runtime.persist();
    // What a crash at this moment leaves on disk: a copy, so the old runtime's stop cannot write to it.
    await cp(join(dir, "live"), join(dir, "crashed"), { recursive: true });
    expect(h.runtime.status().agents.find((a) => a.instanceId === "reader")?.busy).toBe(true);
    await h.runtime.stop();

    const store = new FileSceneStateStore(join(dir, "crashed"));
    const resumed: SceneRuntime = await h.reopen(store);
    expect(resumed.world.snapshot()).toEqual({ forecast: "sunny" });
    await resumed.whenIdle();
    expect(resumed.privateState("reader").snapshot()).toEqual({ heard: "sunny" });
    const restarted = resumed.log.entries().find((e) => e.kind === "deliberation.started");
    expect(restarted).toMatchObject({ instanceId: "reader" });
    const queued = (await store.readLog("weather")).filter((e) => e.kind === "trigger.queued").map((e) => (e.kind === "trigger.queued" ? (e.trigger as AgentTrigger) : undefined));
    expect(queued.map((t) => t?.kind)).toEqual(["user", "event"]);
    const seqs = (await store.readLog("weather")).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    await resumed.persist();
    expect((await store.loadState("weather"))?.privateStates.reader).toEqual({ heard: "sunny" });
  });
});
