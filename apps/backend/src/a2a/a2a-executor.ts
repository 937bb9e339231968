import { randomUUID } from "node:crypto";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { Role, TaskState, type Message, type Part } from "@a2a-js/sdk";
import { messageOf, type PermissionAnswer } from "@weft/types";
import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { LoopWaitDeps } from "../agents/loop-wait.ts";
import { ServiceError } from "../service-error.ts";
import { nextLoopStop, type LoopStop } from "./a2a-loop-stops.ts";

/** The most text one A2A message may carry (its text parts and data parts as JSON), as for /v1/'s messages. */
export const MAX_A2A_MESSAGE_CHARS = 100_000;

export interface A2aExecutorDeps extends LoopWaitDeps {
  agents: AgentHost;
  storage: AgentsStorage;
  /** How long a task waits for the agent's loop before cancelling it (default 10 minutes). */
  timeoutMs?: number;
}

/** The message's parts as the text the agent reads: text parts as they are, data parts as JSON; files are refused. */
export function textOfParts(parts: readonly Part[]): string {
  const texts = parts.map((part, i) => {
    const content = part.content;
    switch (content?.$case) {
      case "text":
        return content.value;
      case "data":
        return JSON.stringify(content.value);
      case "raw":
      case "url":
      case undefined:
        throw new ServiceError("VALIDATION_FAILED", `message.parts[${i}]: only text and data parts are accepted; send a file's content as text or data.`, { part: i });
      default: {
        const never: never = content;
        return never;
      }
    }
  });
  const text = texts.join("\n\n");
  if (text.length > MAX_A2A_MESSAGE_CHARS)
    throw new ServiceError("VALIDATION_FAILED", `message.parts: the message is ${text.length} characters long; at most ${MAX_A2A_MESSAGE_CHARS} are accepted.`, { limit: MAX_A2A_MESSAGE_CHARS });
  if (text.trim() === "") throw new ServiceError("VALIDATION_FAILED", "message.parts: the message is empty; send a text part with the user's message.");
  return text;
}

/** A message from the agent, in the task's context. */
function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A client's reply to a permission question: `once`, `always` or `reject` (also yes/allow and no/deny), or undefined for anything else. */
export function permissionAnswerOf(text: string): PermissionAnswer["answer"] | undefined {
  const word = text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, "");
  if (word === "once" || word === "yes" || word === "allow") return "once";
  if (word === "always") return "always";
  if (word === "reject" || word === "no" || word === "deny") return "reject";
  return undefined;
}

/** What the task asks while the loop waits for a permission: the tool, its target, and how to answer. */
function permissionQuestion(request: { tool: string; target?: string }): string {
  const on = request.target !== undefined ? ` on ${request.target}` : "";
  return `The agent asks to use ${request.tool}${on}. Reply in this task with "once" (allow this call), "always" (allow it from now on in this conversation) or "reject".`;
}

/** The A2A state a finished loop leaves its task in: a question to the user, a permission prompt or an approval asks for input. */
export function stateOf(status: string): TaskState {
  switch (status) {
    case "completed":
    case "cut_off":
      return TaskState.TASK_STATE_COMPLETED;
    case "waiting_user":
    case "waiting_permission":
    case "waiting_approval":
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case "cancelled":
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_FAILED;
  }
}

/**
 * Runs an agent for an A2A task: the task's context is a Weft conversation (`contextId` = conversation id, a new
 * one when the context is new), the task's message is the user's turn sent through the `AgentHost` the agent chat
 * uses, and the loop's `agent.finished` ends the task with the answer as its status message and an `answer` artifact.
 */
export class A2aExecutor implements AgentExecutor {
  /** The conversation of each task still running, and what ends its wait, for tasks/cancel. */
  private readonly running = new Map<string, { contextId: string; wait: AbortController }>();

  constructor(
    private readonly agentId: string,
    private readonly deps: A2aExecutorDeps,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const userId = request.context.user?.userName;
    if (!userId || !request.context.user?.isAuthenticated) throw new ServiceError("VALIDATION_FAILED", "An A2A task needs a personal API token's user.");
    const text = textOfParts(request.userMessage.parts);
    const base = { id: taskId, contextId, artifacts: [], metadata: { weftConversationId: contextId, weftAgentId: this.agentId } };
    const history = [...(request.task?.history ?? []), request.userMessage];
    const status = (state: TaskState, message?: Message) => ({ state, message, timestamp: new Date().toISOString() });
    bus.publish(AgentEvent.task({ ...base, history, status: status(TaskState.TASK_STATE_SUBMITTED) }));
    const finish = (state: TaskState, answer: string) => {
      const message = agentMessage(taskId, contextId, answer);
      if (state === TaskState.TASK_STATE_COMPLETED && answer !== "")
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: `${taskId}-answer`, name: "answer", description: "The agent's answer", parts: message.parts, metadata: undefined, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined }));
      bus.finished();
    };
    // Known from here on, so tasks/cancel can end it; an error ends it `failed` unless it was cancelled first.
    const wait = new AbortController();
    this.running.set(taskId, { contextId, wait });
    try {
      await this.openConversation(contextId);
      const after = await this.deps.storage.events.lastSeq(contextId);
      // A loop waiting for a permission takes this message as the answer (the task is the one that asked).
      const asking = (await this.deps.agents.conversation(contextId)).agent?.pendingPermissions[0];
      if (asking) {
        const answer = permissionAnswerOf(text);
        if (answer === undefined) return finish(TaskState.TASK_STATE_INPUT_REQUIRED, `"${text.slice(0, 100)}" is no answer. ${permissionQuestion(asking)}`);
        await this.deps.agents.answerPermission(contextId, asking.requestId, { answer });
      } else await this.deps.agents.sendMessage(this.agentId, text, contextId, userId);
      // Cancelled while the loop was starting: the cancel found nothing to stop, so it is stopped now.
      if (!this.running.has(taskId)) return void (await this.deps.agents.cancel(contextId).catch(() => undefined));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      const stop: LoopStop = await nextLoopStop(this.deps, contextId, after, this.deps.timeoutMs ?? 600_000, wait.signal);
      if (!this.running.has(taskId)) return;
      if (stop.kind === "permission") return finish(TaskState.TASK_STATE_INPUT_REQUIRED, permissionQuestion(stop));
      const { outcome } = stop;
      finish(stateOf(outcome.status), outcome.text || (outcome.status === "completed" ? "" : `The agent stopped (${outcome.status}).`));
    } catch (error) {
      if (this.running.has(taskId)) finish(TaskState.TASK_STATE_FAILED, messageOf(error));
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const task = this.running.get(taskId);
    if (!task) return;
    this.running.delete(taskId);
    task.wait.abort();
    const conversationId = task.contextId;
    // A loop that has not started yet (or already ended) has nothing to cancel; the task ends canceled all the same.
    await this.deps.agents.cancel(conversationId).catch(() => undefined);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: conversationId,
        status: { state: TaskState.TASK_STATE_CANCELED, message: agentMessage(taskId, conversationId, "Cancelled by the A2A client."), timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }

  /** The context's conversation: continued when it is this agent's, opened when it is new, refused when it is another agent's. */
  private async openConversation(contextId: string): Promise<void> {
    const { storage } = this.deps;
    const existing = await storage.conversations.get(contextId);
    if (existing) {
      if (existing.agentId !== this.agentId)
        throw new ServiceError("VALIDATION_FAILED", `contextId ${contextId} is a conversation of another agent; leave contextId out to start a new one.`, { contextId });
      return;
    }
    const profile = (await storage.agents.get(this.agentId))?.document;
    if (!profile) throw new ServiceError("NOT_FOUND", `There is no agent "${this.agentId}".`, { agentId: this.agentId });
    await storage.conversations.create({ id: contextId, title: `${profile.name} (A2A)`, activeMode: "agent", agentId: profile.id });
  }
}
