import { AgentInstance, ExecutionEngine, InMemoryConversationStore, withLlmCaller, type RecordedLlm } from "@weft/agent-runtime";
import type { AgentProfile, ConversationStore, RunEventSink, Scene, Workflow } from "@weft/types";
import { ServiceError } from "../service-error.ts";
import type { AgentServiceDeps } from "../agents/agent-service.ts";
import { ExternalRunRecorder } from "../runs/external-run-recorder.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { profileAtVersion } from "../agents/profile-version.ts";
import type { SceneSession } from "./scene-store.ts";
import { turnTakingLlm, type SceneTurns } from "./scene-turns.ts";

/** A scene's agents need what a standalone agent needs. */
export type SceneAgentDeps = AgentServiceDeps;

/** The profile of every agent instance of the scene (its pinned version, if any); a missing one is a 400 naming the instance. */
export async function loadSceneProfiles(storage: AgentsStorage, scene: Scene): Promise<Map<string, AgentProfile>> {
  const profiles = new Map<string, AgentProfile>();
  const missing: { path: (string | number)[]; message: string }[] = [];
  for (const [i, agent] of scene.agents.entries()) {
    const profile = (await storage.agents.get(agent.profileId))?.document;
    // A pinned version (a fork made with another version of the profile) runs as it was saved.
    if (profile && agent.profileVersion !== undefined) profiles.set(agent.instanceId, await profileAtVersion(storage, agent.profileId, agent.profileVersion, `agents.${i}.profileVersion`));
    else if (profile) profiles.set(agent.instanceId, profile);
    else missing.push({ path: ["agents", i, "profileId"], message: `no agent profile has the id "${agent.profileId}" (GET /api/agents lists them)` });
  }
  if (missing.length > 0) {
    throw new ServiceError("VALIDATION_FAILED", `Scene "${scene.id}" cannot run: ${missing.map((m) => m.message).join("; ")}. Create the profiles or change the scene.`, { issues: missing });
  }
  return profiles;
}

async function create(options: Parameters<typeof AgentInstance.create>[0], sceneId: string): Promise<AgentInstance> {
  const created = await AgentInstance.create(options);
  if (!created.ok) {
    const { code, message, hint } = created.error;
    throw new ServiceError("VALIDATION_FAILED", `Agent "${options.instanceId}" of scene "${sceneId}" cannot run: ${message}${hint ? ` ${hint}` : ""}`, {
      agentError: created.error,
      issues: [{ path: [], message, code }],
    });
  }
  return created.value;
}

/**
 * The live agents of a scene session: each instance continues its session conversation, records
 * its deliberation and action runs like any other run, and sends its `agent.*` events to `onEvent`
 * (the scene's stream). The processing of each model reply waits for a turn (`turns`), so the
 * scene's work interleaves with the server's requests.
 */
export async function createSceneAgents(
  deps: SceneAgentDeps,
  scene: Scene,
  profiles: Map<string, AgentProfile>,
  session: SceneSession,
  onEvent: RunEventSink,
  turns: SceneTurns,
): Promise<Map<string, AgentInstance>> {
  const llm = withLlmCaller(turnTakingLlm(deps.llm, turns), { sceneId: scene.id });
  const snapshots = new Map<string, Workflow>();
  for (const profile of profiles.values()) {
    for (const id of [profile.deliberationWorkflowId, ...profile.skills]) {
      const stored = await deps.storage.workflows.get(id);
      if (stored) snapshots.set(id, stored.document);
    }
  }
  const recorder = new ExternalRunRecorder(
    deps.journal,
    (workflowId) => snapshots.get(workflowId),
    () => session.startedBy,
  );
  const agents = new Map<string, AgentInstance>();
  try {
    for (const agent of scene.agents) {
      const profile = profiles.get(agent.instanceId) as AgentProfile;
      const conversationId = session.conversations[agent.instanceId] as string;
      agents.set(
        agent.instanceId,
        await create(
          {
            profile,
            engine: deps.engineFor(`agent:${profile.id}`),
            catalog: deps.catalog,
            workflows: deps.workflows,
            conversations: deps.storage.conversations,
            conversationId,
            instanceId: agent.instanceId,
            llm,
            ...(deps.toolHost ? { toolHost: deps.toolHost } : {}),
            permissionBroker: deps.permissionBroker,
            stateStore: deps.storage.agentSessions,
            onEvent,
            onRunEvent: recorder.onEvent,
            logger: deps.log,
          },
          scene.id,
        ),
      );
    }
  } catch (error) {
    for (const made of agents.values()) made.dispose();
    throw error;
  }
  return agents;
}

/**
 * The agents of a replay: their model outputs come from the record, their conversations live in
 * memory (the stored session is not touched) and they get no tool host, so file and shell tools
 * are not run a second time. Like live agents, each served output is processed in a turn of its own.
 */
export async function createReplayAgents(deps: SceneAgentDeps, scene: Scene, profiles: Map<string, AgentProfile>, recorded: RecordedLlm, turns: SceneTurns): Promise<Map<string, AgentInstance>> {
  const conversations: ConversationStore = new InMemoryConversationStore();
  const engine = new ExecutionEngine({ catalog: deps.catalog, workflows: deps.workflows });
  const agents = new Map<string, AgentInstance>();
  for (const agent of scene.agents) {
    const profile = profiles.get(agent.instanceId) as AgentProfile;
    agents.set(
      agent.instanceId,
      await create(
        { profile, engine, catalog: deps.catalog, workflows: deps.workflows, conversations, instanceId: agent.instanceId, llm: turnTakingLlm(recorded.serviceFor(agent.instanceId), turns) },
        scene.id,
      ),
    );
  }
  return agents;
}
