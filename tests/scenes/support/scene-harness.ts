import { resolve } from "node:path";
// tests/ is not a workspace package: the packages are imported by path.
import { createBuiltinRegistry } from "../../../packages/nodes/src/index.ts";
import {
  AgentInstance,
  DirectoryWorkflowSource,
  ExecutionEngine,
  InMemoryConversationStore,
  ProfileLlmService,
  RecordedEffectOrder,
  RecordedLlm,
  replayScene,
  SceneRuntime,
  sceneDeliberate,
  StaticLlmProfileResolver,
  startScriptedLlmServer,
  type SceneReplayReport,
  type SceneStateStore,
  type ScriptedLlmServer,
  type ScriptedTurn,
} from "../../../packages/agent-runtime/src/index.ts";
import { LlmProfileSchema, type AgentProfileInput, type LlmService, type SceneInput, type SceneLogEntry } from "../../../packages/types/src/index.ts";

export const WORKFLOWS_DIR = resolve(import.meta.dirname, "../../../workflows");

export interface HarnessAgent {
  instanceId: string;
  profile: Partial<AgentProfileInput> & { tools: string[] };
  /** What this agent's own scripted LLM server answers, in order. */
  turns: ScriptedTurn[];
}

export interface SceneHarness {
  runtime: SceneRuntime;
  agents: Map<string, AgentInstance>;
  /** One scripted OpenAI-compatible server per agent, so concurrent agents never race for turns. */
  servers: Map<string, ScriptedLlmServer>;
  /** A fresh runtime for the same scene and agents, restored from `store`, talking to the same servers. */
  reopen(store: SceneStateStore): Promise<SceneRuntime>;
  /** Replays a recorded log in a fresh runtime whose agents take their outputs from the record. */
  replay(log: readonly SceneLogEntry[]): Promise<SceneReplayReport>;
  stop(): Promise<void>;
}

const catalog = createBuiltinRegistry();
const workflows = new DirectoryWorkflowSource(WORKFLOWS_DIR);

function profileOf(agent: HarnessAgent): AgentProfileInput {
  return { id: agent.instanceId, name: agent.instanceId, deliberationWorkflowId: "agent-deliberation", maxSteps: 6, ...agent.profile };
}

async function makeAgents(defs: readonly HarnessAgent[], llmFor: (id: string) => LlmService): Promise<Map<string, AgentInstance>> {
  const agents = new Map<string, AgentInstance>();
  const conversations = new InMemoryConversationStore();
  for (const def of defs) {
    const llm = llmFor(def.instanceId);
    const created = await AgentInstance.create({
      profile: profileOf(def),
      engine: new ExecutionEngine({ catalog, workflows, services: { llm } }),
      catalog,
      workflows,
      conversations,
      instanceId: def.instanceId,
      llm,
    });
    if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
    agents.set(def.instanceId, created.value);
  }
  return agents;
}

/**
 * A scene with real agents: each AgentInstance runs the repository's deliberation workflow on the
 * engine with the built-in nodes, through the real `openai` SDK, against its own scripted server.
 */
export async function createSceneHarness(options: { scene: SceneInput; agents: HarnessAgent[]; store?: SceneStateStore }): Promise<SceneHarness> {
  const servers = new Map<string, ScriptedLlmServer>();
  const llms = new Map<string, LlmService>();
  for (const def of options.agents) {
    const server = await startScriptedLlmServer({ turns: def.turns });
    servers.set(def.instanceId, server);
    const profile = LlmProfileSchema.parse({ id: "scripted", name: "Scripted", baseUrl: server.baseUrl, model: server.model, maxRetries: 0 });
    llms.set(def.instanceId, new ProfileLlmService({ profiles: new StaticLlmProfileResolver([profile]) }));
  }
  const llmFor = (id: string) => llms.get(id) as LlmService;
  const subscriptions = new Map(options.agents.map((a) => [a.instanceId, a.profile.subscribedEvents ?? []]));
  const build = async (store?: SceneStateStore) => {
    const agents = await makeAgents(options.agents, llmFor);
    const runtime = new SceneRuntime({
      scene: options.scene,
      profileOf: (id) => ({ subscribedEvents: subscriptions.get(id) ?? [] }),
      deliberate: sceneDeliberate((id) => agents.get(id)),
      ...(store ? { store } : {}),
    });
    return { agents, runtime };
  };
  const first = await build(options.store);
  const all: AgentInstance[] = [...first.agents.values()];
  const runtimes: SceneRuntime[] = [first.runtime];
  return {
    runtime: first.runtime,
    agents: first.agents,
    servers,
    async reopen(store) {
      const next = await build(store);
      all.push(...next.agents.values());
      runtimes.push(next.runtime);
      if (!(await next.runtime.restoreFromStore())) throw new Error("nothing was saved for the scene");
      return next.runtime;
    },
    async replay(log) {
      const recorded = new RecordedLlm(log);
      const effects = new RecordedEffectOrder(log);
      const agents = await makeAgents(options.agents, (id) => recorded.serviceFor(id));
      all.push(...agents.values());
      const runtime = new SceneRuntime({
        scene: { ...options.scene, triggers: (options.scene.triggers ?? []).filter((t) => t.kind !== "timer") },
        profileOf: (id) => ({ subscribedEvents: subscriptions.get(id) ?? [] }),
        deliberate: sceneDeliberate((id) => agents.get(id), { replay: recorded }),
        effectGate: effects,
      });
      runtimes.push(runtime);
      return replayScene(runtime, log, recorded, effects);
    },
    async stop() {
      for (const runtime of runtimes) await runtime.stop();
      for (const agent of all) agent.dispose();
      for (const server of servers.values()) await server.stop();
    },
  };
}
