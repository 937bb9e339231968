import { BUILDER_REPAIR_PREFIX, type BuilderChangeSet, type BuilderSession, type BuilderToolCall, type ConversationMessage, type PaneMessage } from "@weft/types";
import type { ChangeOperation } from "../domain/change-set.ts";
import type { ChangeSetRecord, SessionRecord } from "../domain/records.ts";

export function sessionView(session: SessionRecord, busy: boolean): BuilderSession {
  return {
    id: session.id,
    conversationId: session.conversationId,
    target: session.target,
    mode: session.mode,
    status: session.status,
    llmProfileId: session.llmProfileId ?? null,
    scope: session.scope,
    maxRepairRounds: session.maxRepairRounds,
    contextEnvelope: session.contextEnvelope,
    latestChangeSetId: session.latestChangeSetId ?? null,
    busy,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

function operationTarget(op: ChangeOperation): string {
  switch (op.op) {
    case "workflow.put":
      return op.workflow.id;
    case "agent.put":
      return op.agent.id;
    case "scene.put":
      return op.scene.id;
    case "workflow.delete":
      return op.workflowId;
    case "agent.delete":
      return op.agentId;
    case "scene.delete":
      return op.sceneId;
    case "node.put":
      return `${op.workflowId}/${op.node.id}`;
    case "node.remove":
      return `${op.workflowId}/${op.nodeId}`;
    case "edge.put":
      return `${op.workflowId}/${op.edge.id}`;
    case "edge.remove":
      return `${op.workflowId}/${op.edgeId}`;
    case "asset.put":
      return op.path;
    default: {
      const never: never = op;
      return never;
    }
  }
}

/** A change set without its full documents (those are in the preview). */
export function changeSetView(cs: ChangeSetRecord): BuilderChangeSet {
  return {
    id: cs.id,
    sessionId: cs.sessionId,
    version: cs.version,
    status: cs.status,
    statusReason: cs.statusReason ?? null,
    summary: cs.summary,
    operations: cs.operations.map((op) => ({ op: op.op, target: operationTarget(op) })),
    objects: cs.entries.map((e) => ({ type: e.type, key: e.key, deleted: e.value === null })),
    validation: cs.validation ?? null,
    appliedRevisions: cs.appliedRevisions ?? null,
    createdAt: cs.createdAt,
    updatedAt: cs.updatedAt,
  };
}

function outcomeOf(content: string): Omit<BuilderToolCall, "callId" | "name"> {
  try {
    const parsed = JSON.parse(content) as { ok?: unknown; error?: { code?: unknown }; changeSetId?: unknown };
    return {
      ok: parsed.ok === true,
      ...(parsed.ok === false && typeof parsed.error?.code === "string" ? { code: parsed.error.code } : {}),
      ...(typeof parsed.changeSetId === "string" ? { changeSetId: parsed.changeSetId } : {}),
    };
  } catch {
    return { ok: null };
  }
}

export function paneMessages(log: readonly ConversationMessage[]): PaneMessage[] {
  const results = new Map<string, Extract<ConversationMessage, { role: "tool" }>>();
  for (const m of log) if (m.role === "tool") results.set(m.tool_call_id, m);
  const out: PaneMessage[] = [];
  for (const m of log) {
    switch (m.role) {
      case "user":
        out.push({ id: m.id, at: m.createdAt, kind: m.content.startsWith(BUILDER_REPAIR_PREFIX) ? "repair_request" : "user", text: m.content });
        break;
      case "assistant":
        if (m.llmError) {
          out.push({ id: m.id, at: m.createdAt, kind: "error", code: m.llmError.code, message: m.llmError.message, hint: m.llmError.hint, partialText: m.content ?? "" });
          break;
        }
        out.push({
          id: m.id,
          at: m.createdAt,
          kind: "assistant",
          text: m.content ?? "",
          toolCalls: (m.tool_calls ?? []).map((c) => {
            const result = results.get(c.id);
            return { callId: c.id, name: result?.toolName ?? c.function.name, ...(result ? outcomeOf(result.content) : { ok: null }) };
          }),
        });
        break;
      case "tool":
      case "system":
        break;
      default: {
        const never: never = m;
        return never;
      }
    }
  }
  return out;
}
