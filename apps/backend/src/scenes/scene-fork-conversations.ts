import { randomUUID } from "node:crypto";
import type { ConversationForkChanges, ConversationMessage, Scene, SceneLogEntry } from "@weft/types";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { forConversation } from "../agents/conversation-fork.ts";
import type { SceneSession } from "./scene-store.ts";

/** The forked agent's step and what changed there, for its conversation's `forkOf` and `forkChanges`. */
export interface ForkedStep {
  instanceId: string;
  /** The step within its deliberation (as the session log numbers steps). */
  step: number;
  changes: ConversationForkChanges;
}

/** The trigger a scene agent's conversation message was sent for (`scene-trigger:<scene>:<trigger>`, as `sceneDeliberate` names it). */
function triggerOf(message: ConversationMessage): string | undefined {
  return message.id?.startsWith("scene-trigger:") ? message.id.slice(message.id.lastIndexOf(":") + 1) : undefined;
}

/**
 * The conversations of a fork's agents, by instance id: each a copy of the instance's conversation in the forked
 * session up to the message of its first trigger whose deliberation the fork's `log` does not finish. The deliberations
 * in flight at the fork point are replayed from the log into them (their trigger message, then the recorded steps), so
 * every agent's live steps see the history its original had. The forked agent's copy names the conversation and step it
 * was forked from (`forkOf`, step numbered as the conversation numbers it), so its chat shows both branches.
 */
export async function forkConversations(storage: AgentsStorage, source: SceneSession | undefined, scene: Scene, log: readonly SceneLogEntry[], forked: ForkedStep): Promise<Record<string, string>> {
  const finished = new Set(log.flatMap((e) => (e.kind === "deliberation.finished" ? [`${e.instanceId}/${e.triggerId}`] : [])));
  const conversations: Record<string, string> = {};
  for (const { instanceId } of scene.agents) {
    const parentId = source?.conversations[instanceId];
    const parent = parentId !== undefined ? await storage.conversations.get(parentId) : undefined;
    if (!parentId || !parent) continue;
    const messages = await storage.conversations.messages(parentId);
    const open = messages.findIndex((m) => {
      const trigger = triggerOf(m);
      return trigger !== undefined && !finished.has(`${instanceId}/${trigger}`);
    });
    const copied = open < 0 ? messages : messages.slice(0, open);
    const id = randomUUID();
    const agentId = parent.agentId ?? instanceId;
    if (instanceId === forked.instanceId) {
      // The conversation numbers steps on from its earlier deliberations'.
      const before = Math.max(0, ...copied.flatMap((m) => (m.role === "assistant" && m.agentStep ? [m.agentStep.step] : [])));
      await storage.conversations.createFork({ id, title: parent.title, agentId, forkOf: { conversationId: parentId, step: before + forked.step }, forkChanges: forked.changes });
    } else await storage.conversations.create({ id, title: parent.title, activeMode: "agent", agentId });
    const copy = forConversation({ messages: copied, steps: [], rerunsStep: false }, id);
    if (copy.messages.length > 0) await storage.conversations.append(id, copy.messages);
    conversations[instanceId] = id;
  }
  return conversations;
}
