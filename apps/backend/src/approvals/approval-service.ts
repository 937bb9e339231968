import { randomUUID } from "node:crypto";
import { messageOf, type ApprovalDecision, type ApprovalOutcome, type ApprovalRequest, type Logger } from "@weft/types";
import { roleAtLeast, type Role } from "../accounts/roles.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import { notFound, ServiceError } from "../service-error.ts";
import type { ApprovalLinks, LinkCheck, LinkClaim } from "./approval-link.ts";
import type { Approval, ApprovalTable, DecisionRecord } from "./approval-table.ts";

/** Who answers: a signed-in user (their role decides), or a signed link (its maker's right was checked when it was made). */
export interface Decider {
  userId: string;
  role: Role;
}

/** An agent's `ask_approval` call, as the agents' side hands it here to store (`requestForAgent`). */
export interface AgentApprovalAsk {
  conversationId: string;
  agentId: string;
  /** The step whose call asks: the decision answers that call only. */
  step: number;
  request: ApprovalRequest;
}

/**
 * Continues an agent's conversation with a decision (given by the agents' side at composition, so neither domain
 * imports the other): true once its loop took it, false when the conversation no longer waits on that step (nothing
 * to do); a throw (busy, shutting down) leaves the decision for the next sweep.
 */
export type AgentApprovalResumer = (decided: { conversationId: string; agentId: string; step: number; outcome: ApprovalOutcome }) => Promise<boolean>;

/** How long a signed link works unless asked otherwise, and at most. */
export const DEFAULT_LINK_SECONDS = 7 * 24 * 3600;
export const MAX_LINK_SECONDS = 30 * 24 * 3600;

export interface ApprovalServiceDeps {
  table: ApprovalTable;
  storage: RunsStorage;
  links: ApprovalLinks;
  log: Logger;
  /** A user's name as people read it (accounts, at composition): an agent's observation names who decided. */
  userName?: (userId: string) => Promise<string | undefined>;
  now?: () => number;
}

/**
 * Approvals: the requests of waiting runs (stored by their executor, `approval-waits.ts`), who may answer them, the
 * answer (recorded once: a second gets CONFLICT), and the resume of the run. Nothing here is held per waiting run:
 * the timeout is the row's deadline, taken by `sweep` (`approval-sweeper.ts`), one loop per process.
 */
export class ApprovalService {
  /** Set once the run service exists (it is built after the executor that stores requests here). */
  private runs: RunService | undefined;
  /** Set once the agents exist (queue mode's API process has none: its agents offer no `ask_approval`). */
  private agents: AgentApprovalResumer | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: ApprovalServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  attachRuns(runs: RunService): void {
    this.runs = runs;
  }

  attachAgents(resumer: AgentApprovalResumer): void {
    this.agents = resumer;
  }

  /** Stores an agent's `ask_approval` request as a pending approval (once per asking step), with its deadline. */
  async requestForAgent(ask: AgentApprovalAsk): Promise<void> {
    const at = this.now();
    const { request } = ask;
    await this.deps.table.addPending([
      {
        id: randomUUID(),
        runId: ask.conversationId,
        subject: { kind: "agent", conversationId: ask.conversationId, agentId: ask.agentId, step: ask.step },
        nodeId: `step-${ask.step}`,
        workflowId: ask.agentId,
        request,
        createdAt: at,
        ...(request.timeoutSeconds !== undefined ? { deadline: at + request.timeoutSeconds * 1000 } : {}),
      },
    ]);
  }

  /**
   * Closes what an agent's conversation waits for (the conversation was cancelled): it leaves the inbox and a later
   * decision gets CONFLICT (CLOSED). A decision recorded before stays (its continuation is the conversation's own).
   */
  async closeForAgent(conversationId: string): Promise<void> {
    await this.deps.table.closePending(conversationId, this.now());
  }

  /** Pending approvals this user may answer (or every approval of a run, decided ones too, for a run's view). */
  async list(who: Decider, query: { runId?: string; limit?: number }): Promise<Approval[]> {
    if (query.runId !== undefined) return this.deps.table.byRun(query.runId);
    const pending = await this.deps.table.pending(Math.min(query.limit ?? 100, 500));
    return pending.filter((a) => mayDecide(who.role, a));
  }

  async get(id: string): Promise<Approval> {
    const approval = await this.deps.table.get(id);
    if (!approval) throw notFound("approval", id, "GET /api/approvals lists the pending ones.");
    return approval;
  }

  /** Whether `who` may answer: false for viewers, and for editors when the node asks owners only. */
  mayDecide(who: Decider, approval: Approval): boolean {
    return mayDecide(who.role, approval);
  }

  /** Records the decision and resumes the run; CONFLICT when it was decided before (by anyone, or the timeout). */
  async decide(id: string, decision: ApprovalDecision, decidedBy: string, comment?: string): Promise<Approval> {
    const record: DecisionRecord = { decision, decidedBy, decidedAt: this.now(), ...(comment !== undefined && comment !== "" ? { comment } : {}) };
    if (!(await this.deps.table.decide(id, record))) {
      const now = await this.get(id);
      if (now.status === "closed")
        throw new ServiceError("CONFLICT", `Approval "${id}" is closed: its ${now.subject.kind === "agent" ? "conversation" : "run"} was cancelled while it waited; there is nothing to decide.`, {
          reason: "CLOSED",
        });
      throw new ServiceError("CONFLICT", `Approval "${id}" was already decided (${now.decision ?? "?"} by ${now.decidedBy ?? "?"}); a decision is final.`, {
        reason: "ALREADY_DECIDED",
        decision: now.decision,
        decidedBy: now.decidedBy,
        decidedAt: now.decidedAt,
      });
    }
    const decided = await this.get(id);
    await this.resume(decided.runId, decided.subject.kind);
    return decided;
  }

  /** A signed link to decide this approval once, until `expiresInSeconds` from now (its maker may decide it). */
  makeLink(approval: Approval, maker: string, expiresInSeconds = DEFAULT_LINK_SECONDS): { token: string; expiresAt: number } {
    if (approval.status !== "pending") throw new ServiceError("CONFLICT", `Approval "${approval.id}" was already decided; a link to it would decide nothing.`, { reason: "ALREADY_DECIDED" });
    const expiresAt = this.now() + Math.min(expiresInSeconds, MAX_LINK_SECONDS) * 1000;
    return { token: this.deps.links.sign({ approvalId: approval.id, expiresAt, maker }), expiresAt };
  }

  /** Decides through a signed link: a tampered, expired or malformed link decides nothing (VALIDATION_FAILED), a used one CONFLICT. */
  async decideByLink(token: string, decision: ApprovalDecision, comment?: string): Promise<Approval> {
    const claim = this.claimOf(token);
    return this.decide(claim.approvalId, decision, `link:${claim.maker}`, comment);
  }

  /** The approval a signed link decides, for the link's page (what to review); the link stays unused. */
  async viewByLink(token: string): Promise<Approval> {
    return await this.get(this.claimOf(token).approvalId);
  }

  private claimOf(token: string): LinkClaim {
    const check: LinkCheck = this.deps.links.verify(token, this.now());
    if (!check.ok) {
      throw new ServiceError("VALIDATION_FAILED", `body.token: this approval link is ${LINK_WORDS[check.reason]}; ask for a new link (POST /api/approvals/:id/link).`, {
        reason: "BAD_LINK",
        problem: check.reason,
      });
    }
    return check.claim;
  }

  /** Takes the default decision of every approval whose deadline has passed (each exactly once across processes), then resumes runs left unresumed. */
  async sweep(): Promise<{ timedOut: number; resumed: number }> {
    const now = this.now();
    let timedOut = 0;
    for (const a of await this.deps.table.overdue(now, 100)) {
      if (await this.deps.table.decide(a.id, { decision: a.request.defaultDecision, decidedBy: "timeout", decidedAt: now, comment: `no decision within ${a.request.timeoutSeconds ?? 0} s` }))
        timedOut++;
    }
    let resumed = 0;
    for (const { runId, kind } of await this.deps.table.unresumedRuns(100)) if (await this.resume(runId, kind)) resumed++;
    return { timedOut, resumed };
  }

  /**
   * Hands a run with new decisions on to resume, once: the claim on its decided rows decides between processes. A run
   * still executing (it paused again elsewhere, or is resuming) gives the claim back for the next sweep.
   */
  private async resume(runId: string, kind: Approval["subject"]["kind"]): Promise<boolean> {
    if (kind === "agent") return this.resumeAgent(runId);
    const runs = this.runs;
    if (runs === undefined) return false;
    const claimedAt = this.now();
    if (!(await this.deps.table.claimResume(runId, claimedAt))) return false;
    try {
      if (await runs.resume(runId)) return true;
    } catch (error) {
      this.deps.log.error("resuming a run failed", { runId, error: messageOf(error) });
    }
    const status = (await this.deps.storage.runs.get(runId))?.status;
    if (status === "queued" || status === "running") await this.deps.table.releaseResume(runId, claimedAt);
    return false;
  }

  /**
   * Hands an agent's conversation its decision, once (the same claim as runs): the last decided approval it asked
   * (a conversation waits on one at a time; earlier ones were answered). A loop that could not take it now (busy, or
   * this process stopping) gives the claim back for the next sweep.
   */
  private async resumeAgent(conversationId: string): Promise<boolean> {
    const agents = this.agents;
    if (agents === undefined) return false;
    const claimedAt = this.now();
    if (!(await this.deps.table.claimResume(conversationId, claimedAt))) return false;
    const decided = (await this.deps.table.byRun(conversationId)).filter((a) => a.status === "decided" && a.subject.kind === "agent").at(-1);
    if (decided === undefined || decided.subject.kind !== "agent" || decided.decision === undefined) return false;
    const decidedBy = decided.decidedBy ?? "unknown";
    const name = await this.nameOf(decidedBy);
    const outcome: ApprovalOutcome = {
      decision: decided.decision,
      decidedBy,
      ...(name !== undefined ? { decidedByName: name } : {}),
      decidedAt: decided.decidedAt ?? claimedAt,
      ...(decided.comment !== undefined ? { comment: decided.comment } : {}),
    };
    try {
      return await agents({ conversationId, agentId: decided.subject.agentId, step: decided.subject.step, outcome });
    } catch (error) {
      this.deps.log.warn("continuing an agent's conversation after a decision failed; the next sweep tries again", { conversationId, error: messageOf(error) });
      await this.deps.table.releaseResume(conversationId, claimedAt);
      return false;
    }
  }

  /** The name of the user behind a `decidedBy` (`<id>`, `link:<id>`, `mcp:<id>`); none for `timeout` or a user since deleted. */
  private async nameOf(decidedBy: string): Promise<string | undefined> {
    if (decidedBy === "timeout" || !this.deps.userName) return undefined;
    const userId = decidedBy.replace(/^(link|mcp):/, "");
    try {
      return await this.deps.userName(userId);
    } catch {
      return undefined;
    }
  }
}

const LINK_WORDS = { malformed: "malformed", bad_signature: "not signed by this installation (changed or made up)", expired: "expired" } as const;

function mayDecide(role: Role, approval: Approval): boolean {
  return roleAtLeast(role, approval.request.role);
}
