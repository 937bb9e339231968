import { PermissionAnswerSchema, type PermissionAnswer, type PermissionRequest } from "@weft/types";
import type { AgentEventStream } from "./agent-events.ts";
import { agentError, fail, ok, type AgentResult } from "./errors.ts";
import { PendingPermissions, type PermissionBroker } from "./permission-broker.ts";
import type { PermissionRecord, PermissionRecorder } from "./step-environment.ts";

/**
 * One agent's permission questions while its loop runs: each question the tool host asks in this conversation
 * (through the broker) waits here until `answer`, is announced as `agent.permission.requested` / `.answered`, and
 * is recorded on the action that raised it (`recorder`). `onWaiting` tells the instance when the loop starts or
 * stops waiting for a person.
 */
export class PermissionWaits {
  private readonly pending: PendingPermissions;
  private readonly detach: (() => void) | undefined;
  private recording: PermissionRecord[] | undefined;

  constructor(
    private readonly agentId: string,
    private readonly conversationId: string,
    private readonly events: AgentEventStream,
    broker: PermissionBroker | undefined,
    private readonly onWaiting: (waiting: boolean) => void,
  ) {
    this.pending = new PendingPermissions({ onRequested: (r) => this.requested(r), onAnswered: (r, a) => this.answered(r, a) });
    this.detach = broker?.attach(conversationId, this.pending);
  }

  list(): PermissionRequest[] {
    return this.pending.list();
  }

  /** Answers a question the loop is waiting on: INVALID_PERMISSION_ANSWER or UNKNOWN_PERMISSION_REQUEST otherwise. */
  answer(requestId: string, answer: PermissionAnswer | PermissionAnswer["answer"]): AgentResult<void> {
    const parsed = PermissionAnswerSchema.safeParse(typeof answer === "string" ? { answer } : answer);
    if (!parsed.success) return fail(agentError("INVALID_PERMISSION_ANSWER", `"${String(typeof answer === "string" ? answer : answer.answer)}" is not an answer; use once, always or reject.`));
    if (!this.pending.answer(requestId, parsed.data)) {
      const open = this.pending.list().map((r) => r.requestId);
      return fail(
        agentError(
          "UNKNOWN_PERMISSION_REQUEST",
          `No open permission question "${requestId}" in conversation ${this.conversationId}.`,
          open.length > 0 ? `Open questions: ${open.join(", ")}.` : "Nothing is waiting for permission now.",
          { requestId },
        ),
      );
    }
    return ok(undefined);
  }

  /** Collects the questions raised while one action runs, for its trace. */
  readonly recorder: PermissionRecorder = {
    begin: () => void (this.recording = []),
    end: () => {
      const records = this.recording ?? [];
      this.recording = undefined;
      return records;
    },
  };

  /** Stops taking the broker's questions. */
  dispose(): void {
    this.detach?.();
  }

  private requested(request: PermissionRequest): void {
    this.onWaiting(true);
    this.events.emit({
      type: "agent.permission.requested",
      agentId: this.agentId,
      requestId: request.requestId,
      tool: request.tool,
      ...(request.target !== undefined ? { target: request.target } : {}),
    });
  }

  private answered(request: PermissionRequest, answer: PermissionAnswer): void {
    this.recording?.push({ requestId: request.requestId, tool: request.tool, ...(request.target !== undefined ? { target: request.target } : {}), answer: answer.answer });
    this.events.emit({ type: "agent.permission.answered", agentId: this.agentId, requestId: request.requestId, answer: answer.answer });
    if (this.pending.size === 0) this.onWaiting(false);
  }
}
