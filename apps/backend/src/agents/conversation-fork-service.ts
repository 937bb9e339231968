import { randomUUID } from "node:crypto";
import { buildAgentManifest, parseAction } from "@weft/agent-runtime";
import { type AgentProfile, type ConversationForkChanges, type NodeCatalog, type WorkflowSource } from "@weft/types";
import type { AgentsStorage } from "./agents-storage.ts";
import { cannotRun, checkRunnable } from "./agent-host.ts";
import { forConversation, planFork, type ConversationForkBody } from "./conversation-fork.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { profileAtVersion } from "./profile-version.ts";

export interface ForkSources {
  storage: AgentsStorage;
  catalog: NodeCatalog;
  workflows: WorkflowSource;
}

/** A fork made from the record, ready for its loop: its id and the profile its live steps run with. */
export interface PreparedFork {
  conversationId: string;
  profile: AgentProfile;
}

/**
 * Makes the fork of conversation `conversationId` at `body.step` from the record alone (no model call, no tool call):
 * a new conversation that names its parent and what changed (`forkOf`, `forkChanges`), holding the parent's log and
 * step traces up to the fork point. Everything is checked before anything is stored: the conversation and its agent,
 * the profile version, the step (`planFork`), and that an edited LLM output's `<ACTION>` parses.
 */
export async function prepareFork(sources: ForkSources, conversationId: string, body: ConversationForkBody): Promise<PreparedFork> {
  const { storage } = sources;
  const parent = await storage.conversations.get(conversationId);
  if (!parent) throw notFound("conversation", conversationId);
  const agentId = parent.agentId;
  if (agentId === undefined) {
    throw new ServiceError("VALIDATION_FAILED", `Conversation "${conversationId}" is not an agent's conversation; only an agent's steps can be forked.`, { conversationId });
  }
  const profile = await profileFor(storage, agentId, body.agentVersion);
  const [messages, traces] = await Promise.all([storage.conversations.messages(conversationId), storage.agentSteps.list(conversationId)]);
  const plan = planFork(conversationId, messages, traces, body);
  // A profile (version) that cannot run is refused here, before its fork is stored, not when its loop starts.
  await checkRunnable(profile, sources);
  if (body.llmOutput !== undefined) await checkLlmOutput(sources, profile, body.llmOutput, body.step);

  const id = randomUUID();
  const changes: ConversationForkChanges = {
    ...(body.llmOutput !== undefined ? { llmOutput: body.llmOutput } : {}),
    ...(body.observation !== undefined ? { observation: body.observation } : {}),
    ...(body.agentVersion !== undefined ? { agentVersion: body.agentVersion } : {}),
  };
  await storage.conversations.createFork({ id, title: parent.title, agentId, forkOf: { conversationId, step: body.step }, forkChanges: changes });
  const copy = forConversation(plan, id);
  if (copy.messages.length > 0) await storage.conversations.append(id, copy.messages);
  await storage.agentSteps.save(id, copy.steps);
  return { conversationId: id, profile };
}

/** The conversation's agent profile: its current one, or version `version` of it (VALIDATION_FAILED when that cannot run). */
async function profileFor(storage: AgentsStorage, agentId: string, version: number | undefined): Promise<AgentProfile> {
  const current = await storage.agents.get(agentId);
  if (!current) {
    throw new ServiceError(
      "CONFLICT",
      `The conversation's agent "${agentId}" has no agent profile (a scene agent's conversation, or a deleted agent); only the conversations of saved agents can be forked.`,
      { agentId },
    );
  }
  if (version === undefined) return current.document;
  // The fork's loop runs this version; a later message to the fork goes to the agent's current profile.
  return profileAtVersion(storage, agentId, version, "body.agentVersion");
}

/** An edited LLM output of an `<ACTION>` agent must parse: a malformed action would only be refused when the fork runs. */
async function checkLlmOutput(sources: ForkSources, profile: AgentProfile, text: string, step: number): Promise<void> {
  if (profile.protocol !== "action-xml") return;
  const manifest = await buildAgentManifest(profile, { catalog: sources.catalog, workflows: sources.workflows, agentId: profile.id });
  if (!manifest.ok) throw cannotRun(profile, manifest.error);
  const parsed = parseAction(text, manifest.value);
  if (parsed.kind !== "error") return;
  throw new ServiceError("VALIDATION_FAILED", `body.llmOutput: the <ACTION> of step ${step}'s edited LLM output does not parse (${parsed.code}): ${parsed.message}`, {
    issues: [{ path: ["llmOutput"], message: parsed.message, code: parsed.code }],
  });
}
