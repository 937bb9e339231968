import type { AgentInstance, SceneRuntime } from "@weft/agent-runtime";
import type { AgentStatus, Scene, SceneAgentStatus, SceneAgentView, SceneRuntimeState, SceneStateView } from "@weft/types";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { SceneSession } from "./scene-store.ts";
import type { TimelinePageBuilder } from "./scene-timeline-page.ts";

const RECENT_CHANGES = 100;

/** How the scene view names an agent's state: its loop's status, or busy with a trigger. */
function agentStatus(status: AgentStatus, deliberating: boolean): SceneAgentStatus {
  if (status === "waiting_permission") return "waiting_permission";
  if (deliberating) return "deliberating";
  return status === "waiting_user" ? "waiting_user" : "idle";
}

/** `streamSeq` must be read before the state is: events after it are then never missed by a subscriber. */
export function liveStateView(runtime: SceneRuntime, agents: Map<string, AgentInstance>, scene: Scene, session: SceneSession, streamSeq: number): SceneStateView {
  const info = runtime.status();
  const views: SceneAgentView[] = scene.agents.map((a) => {
    const agent = agents.get(a.instanceId);
    const { inFlight, waiting } = runtime.queueOf(a.instanceId);
    const question = agent?.pendingQuestion;
    const conversationId = session.conversations[a.instanceId];
    return {
      instanceId: a.instanceId,
      profileId: a.profileId,
      status: agentStatus(agent?.status ?? "idle", inFlight !== null),
      ...(conversationId ? { conversationId } : {}),
      ...(question !== undefined ? { pendingQuestion: question } : {}),
      pendingPermissions: agent?.pendingPermissions() ?? [],
      inFlight,
      queue: waiting,
      privateState: runtime.privateState(a.instanceId).snapshot(),
    };
  });
  return {
    sceneId: scene.id,
    sessionId: session.sessionId,
    status: info.status,
    ...(info.reason ? { reason: info.reason } : {}),
    live: true,
    budget: info.budget,
    clock: info.clock,
    agents: views,
    world: runtime.world.snapshot(),
    worldChanges: runtime.world.history().slice(-RECENT_CHANGES),
    streamSeq,
  };
}

/** A scene not loaded in this server: its last saved state, or its definition when it never ran. */
export function savedStateView(scene: Scene, saved: SceneRuntimeState | undefined, session: SceneSession | undefined, streamSeq: number): SceneStateView {
  return {
    sceneId: scene.id,
    ...(session ? { sessionId: session.sessionId } : {}),
    status: saved?.status ?? "idle",
    ...(saved?.reason ? { reason: saved.reason } : {}),
    live: false,
    budget: saved?.budget ?? { limit: scene.stepBudget, used: 0 },
    clock: saved ? { runningMs: saved.runningMs, at: saved.savedAt } : { runningMs: 0, at: Date.now() },
    agents: scene.agents.map((a) => {
      const mailbox = saved?.mailboxes[a.instanceId];
      const conversationId = session?.conversations[a.instanceId];
      return {
        instanceId: a.instanceId,
        profileId: a.profileId,
        status: "idle" as const,
        ...(conversationId ? { conversationId } : {}),
        pendingPermissions: [],
        inFlight: mailbox?.inFlight ?? null,
        queue: mailbox?.queue ?? [],
        privateState: saved?.privateStates[a.instanceId] ?? {},
      };
    }),
    world: saved?.world.document ?? (scene.initialWorldState as SceneStateView["world"]),
    worldChanges: (saved?.world.history ?? []).slice(-RECENT_CHANGES),
    streamSeq,
  };
}

/**
 * Adds the recorded steps of the session's agents in messages after `after` (conversation id → last
 * message seq read; a conversation not in it is read from its start) to `page` while they fit, and
 * answers the last message seq now read per conversation: a step that did not fit is read again next
 * time. Messages are only appended, so a step once read never changes. Once the page is full, the
 * remaining conversations are not read at all.
 */
export async function stepsAfter(storage: AgentsStorage, session: SceneSession, after: Readonly<Record<string, number>>, page: TimelinePageBuilder): Promise<Record<string, number>> {
  const positions: Record<string, number> = {};
  for (const conversationId of Object.values(session.conversations)) positions[conversationId] = after[conversationId] ?? -1;
  for (const [instanceId, conversationId] of Object.entries(session.conversations)) {
    if (page.full) break;
    for (const { seq, message } of await storage.conversations.messagesAfter(conversationId, positions[conversationId] ?? -1)) {
      if (message.role === "assistant" && message.agentStep && !page.addStep({ instanceId, conversationId, trace: message.agentStep })) break;
      positions[conversationId] = seq;
    }
  }
  return positions;
}
