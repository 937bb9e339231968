import { RunEventSchema } from "@weft/types";
import type { AgentHost } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { ServiceError } from "../service-error.ts";

/** Where an agent's loop stopped for an A2A task: it ended (`agent.finished`), or it waits for a person to allow a tool. */
export type LoopStop = { kind: "finished"; outcome: { status: string; text: string } } | { kind: "permission"; requestId: string; tool: string; target?: string };

/** How often the conversation's stored events are read while the loop runs. */
const POLL_MS = 250;
/** Events read per page. */
const PAGE = 500;

/**
 * Waits for the loop of `conversationId` to end or to ask a permission question (one not answered yet), reading the
 * conversation's stored events after `afterSeq` (so an event stored by a queue worker counts too). A permission prompt
 * does not end the loop: it waits there until answered (`AgentHost.answerPermission`). Past `timeoutMs`, or when the
 * loop ended without saying how, it is cancelled and this rejects with SERVICE_UNAVAILABLE; `stopped()` true ends the
 * wait quietly (the task was cancelled) with a `cancelled` outcome.
 */
export async function nextLoopStop(deps: { agents: AgentHost; storage: AgentsStorage }, conversationId: string, afterSeq: number, timeoutMs: number, stopped: () => boolean): Promise<LoopStop> {
  const deadline = Date.now() + timeoutMs;
  const asked = new Map<string, { tool: string; target?: string }>();
  let after = afterSeq;
  for (;;) {
    if (stopped()) return { kind: "finished", outcome: { status: "cancelled", text: "" } };
    // The state before the events: a loop stores its agent.finished before it says it is no longer running.
    const running = (await deps.agents.conversation(conversationId)).agent?.running ?? true;
    for (let page = await deps.storage.events.listAfter(conversationId, after, PAGE); page.length > 0; page = await deps.storage.events.listAfter(conversationId, after, PAGE)) {
      for (const stored of page) {
        after = stored.seq;
        if (!stored.type.startsWith("agent.")) continue;
        const event = RunEventSchema.parse(JSON.parse(stored.json));
        if (event.type === "agent.finished") return { kind: "finished", outcome: { status: event.status, text: event.text ?? "" } };
        if (event.type === "agent.permission.requested") asked.set(event.requestId, { tool: event.tool, ...(event.target !== undefined ? { target: event.target } : {}) });
        if (event.type === "agent.permission.answered") asked.delete(event.requestId);
      }
    }
    const [pending] = asked;
    if (pending) return { kind: "permission", requestId: pending[0], ...pending[1] };
    if (!running) {
      throw new ServiceError("SERVICE_UNAVAILABLE", `The agent's loop in conversation ${conversationId} ended without an answer; GET /api/conversations/${conversationId} shows what it did.`, {
        conversationId,
      });
    }
    if (Date.now() > deadline) {
      await deps.agents.cancel(conversationId).catch(() => undefined);
      throw new ServiceError("SERVICE_UNAVAILABLE", `The agent gave no answer within ${Math.round(timeoutMs / 1000)} s; its loop was cancelled.`, { conversationId });
    }
    await Bun.sleep(POLL_MS);
  }
}
