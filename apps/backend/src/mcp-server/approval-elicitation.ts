import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitResultSchema, type ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import { ApprovalDecisionSchema, messageOf, type ApprovalDecision, type ApprovalRequest, type Logger } from "@weft/types";
import { z } from "zod";
import type { EventHub } from "../events/event-hub.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { McpCaller, McpExtra } from "./mcp-caller.ts";

/** How long a person has to answer in their MCP client; past it the approval stays in the inbox (and its own deadline, if any, still applies). */
export const ELICITATION_TIMEOUT_MS = 30 * 60_000;
/** The approval's data shown in the question is cut here: the inbox shows it whole. */
const MAX_DATA_CHARS = 4_000;

/** The approvals a waiting run has and their decision: the approval service (`approvals/`), wired in by the composition. */
export interface McpApproval {
  id: string;
  status: "pending" | "decided" | "closed";
  request: ApprovalRequest;
}
export interface McpApprovals {
  list(who: McpCaller, query: { runId: string }): Promise<McpApproval[]>;
  mayDecide(who: McpCaller, approval: McpApproval): boolean;
  decide(id: string, decision: ApprovalDecision, decidedBy: string, comment?: string): Promise<unknown>;
}

/** Who decided through MCP, as the approval records it: the token's user, marked as answered in an MCP client. */
export function mcpDecider(userId: string): string {
  return `mcp:${userId}`;
}

const AnswerSchema = z.object({ decision: ApprovalDecisionSchema, comment: z.string().max(10_000).optional() });

function questionOf(request: ApprovalRequest): string {
  const data = request.data === undefined ? "" : JSON.stringify(request.data);
  const shown = data.length > MAX_DATA_CHARS ? `${data.slice(0, MAX_DATA_CHARS)}…` : data;
  return shown === "" ? request.question : `${request.question}\n\nData: ${shown}`;
}

const REQUESTED_SCHEMA: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    decision: { type: "string", title: "Decision", enum: ["approved", "rejected"], enumNames: ["Approve", "Reject"] },
    comment: { type: "string", title: "Comment", description: "Why (kept with the decision)." },
  },
  required: ["decision"],
};

/**
 * While a skill run started through `/mcp` waits at a `core:approval` node, asks the calling client
 * (which declared the elicitation capability) to decide it, on the call's own stream: an accepted
 * answer decides the approval as the token's user (their role is checked as in the inbox), which
 * resumes the run; a declined or cancelled one, or a client that does not answer, leaves the
 * approval in the inbox as without MCP. Each approval is asked once.
 */
export class ApprovalElicitation {
  private readonly asked = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: { storage: RunsStorage; hub: EventHub; approvals: McpApprovals; log: Logger },
    private readonly runId: string,
    private readonly caller: McpCaller,
    private readonly extra: McpExtra,
  ) {
    this.unsubscribe = deps.hub.subscribe(runId, (events) => {
      if (events.some((e) => e.type === "run.waiting")) void this.askPending();
    });
  }

  /** Whether the client that made this call said it answers elicitation forms. */
  static offeredBy(server: Server): boolean {
    const elicitation = server.getClientCapabilities()?.elicitation;
    return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  }

  /** Catches a wait that began before the subscription. */
  async start(): Promise<void> {
    if ((await this.deps.storage.runs.get(this.runId))?.status === "waiting") await this.askPending();
  }

  close(): void {
    this.unsubscribe();
  }

  private async askPending(): Promise<void> {
    try {
      const approvals = await this.deps.approvals.list(this.caller, { runId: this.runId });
      for (const approval of approvals) {
        if (approval.status !== "pending" || this.asked.has(approval.id) || !this.deps.approvals.mayDecide(this.caller, approval)) continue;
        this.asked.add(approval.id);
        void this.ask(approval.id, approval.request);
      }
    } catch (error) {
      this.deps.log.warn("reading a waiting MCP run's approvals failed", { runId: this.runId, error: messageOf(error) });
    }
  }

  private async ask(approvalId: string, request: ApprovalRequest): Promise<void> {
    try {
      const answer = await this.extra.sendRequest({ method: "elicitation/create", params: { mode: "form", message: questionOf(request), requestedSchema: REQUESTED_SCHEMA } }, ElicitResultSchema, {
        timeout: ELICITATION_TIMEOUT_MS,
        signal: this.extra.signal,
      });
      if (answer.action !== "accept") return;
      const parsed = AnswerSchema.safeParse(answer.content);
      if (!parsed.success) {
        this.deps.log.info("an MCP client's approval answer was not a decision; the approval waits in the inbox", { approvalId });
        return;
      }
      await this.deps.approvals.decide(approvalId, parsed.data.decision, mcpDecider(this.caller.userId), parsed.data.comment);
    } catch (error) {
      // Decided elsewhere first (CONFLICT), the client gone or silent: the approval is where the inbox shows it.
      this.deps.log.info("an approval asked through MCP elicitation was not decided there", { approvalId, error: messageOf(error) });
    }
  }
}
