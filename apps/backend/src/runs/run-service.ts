import { LRUCache } from "lru-cache";
import { freezeWorkflow, isFrozenWorkflow, newRunId, pinOutputs, type RecordedNode } from "@weft/agent-runtime";
import type { WorkflowValidator } from "../workflows/workflow-validator.ts";
import { skillReferences } from "../workflows/skill-references.ts";
import type { Logger, Observation, RunTrigger, ValidationIssue, Workflow } from "@weft/types";
import type { RunsStorage } from "./runs-storage.ts";
import type { ForkChanges, RunListQuery, RunRecord, RunSummary } from "../events/run-repository.ts";
import type { PinnedRun } from "../events/run-workflow-base.ts";
import type { EventJournal } from "../events/event-journal.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { messageOf } from "@weft/types";
import type { DispatchCancel, RunDispatcher } from "./run-dispatcher.ts";
import { INTERRUPTED, type RunExecutor } from "./run-executor.ts";
import type { RunWaits } from "./run-waits.ts";
import { checkRunInputs } from "./check-inputs.ts";
import { versionContent } from "../storage/document-versions.ts";
import type { StoredDocument } from "../storage/document-table.ts";
import { forkWorkflow, notRecordedError, recordedNodes, type ForkPoint } from "./run-fork.ts";

export interface StartRunRequest {
  workflowId: string;
  inputs: Record<string, unknown>;
  rerunFrom?: string;
  /** An unsaved version of the workflow to run instead of the stored one. */
  draft?: unknown;
  /** The user who started it (the API request's principal), recorded as the run's `createdBy`. */
  createdBy?: string;
  /** What started it from outside (a webhook), recorded as the run's `trigger`. */
  trigger?: RunTrigger;
  /**
   * Outputs pinned on one node of the checked workflow (what a trigger received): only the run's copy has them, so
   * the stored workflow's check and version serve every such run.
   */
  pins?: { nodeId: string; outputs: Record<string, unknown> };
  /** The stored workflow as the caller has just read it (a trigger, to find the hook): not read again. */
  stored?: StoredDocument<Workflow>;
}

/** The workflow with `pins.outputs` pinned on node `pins.nodeId` (the engine's `pinOutputs`: a new copy). */
function pinned(workflow: Workflow, pins: { nodeId: string; outputs: Record<string, unknown> }): Workflow {
  if (!workflow.nodes.some((n) => n.id === pins.nodeId)) {
    throw new ServiceError("VALIDATION_FAILED", `Workflow "${workflow.id}" has no node "${pins.nodeId}" to pin the trigger's request on (it was saved without it); fire again.`, {
      issues: [{ path: ["nodes"], message: `no node "${pins.nodeId}"`, code: "custom" }],
    });
  }
  return pinOutputs(workflow, pins.nodeId, pins.outputs);
}

/** A run to start as a fork of a past run: recorded as `forkOf` / `forkChanges`, with the forked run's workflow revision. */
interface ForkOrigin {
  forkOf: { runId: string; nodeId: string };
  forkChanges: ForkChanges;
  revision: number;
  /** The recorded nodes the fork's plan read: handed to an executor in this process rather than read again. */
  recorded: Map<string, RecordedNode>;
}

/** Stored workflows whose check and version are kept (each for one stored revision; the least recently started go first). */
const CHECKED_WORKFLOWS = 256;

/** The stored revision a check is kept for: a workflow deleted and made again, or saved, is another. */
const storedRevision = (stored: { document: Workflow; createdAt: number; updatedAt: number }) => `${stored.createdAt}:${stored.updatedAt}:${stored.document.revision}`;

type Started = { runId: string; status: "queued"; queuePosition: number };
/** One run of `startBatch`: started (its id), or why not. */
export type BatchStart = { runId: string } | { error: string };

/**
 * A run checked and built but not recorded yet (`RunService.prepare`): a scheduler records it in the transaction that
 * claims its tick (`store`), then hands it over (`dispatchStored`).
 */
export interface PreparedRun {
  record: RunRecord;
  workflow: Workflow;
  /** A fork's recorded nodes, as its plan read them. */
  recorded?: Map<string, RecordedNode>;
  /** `workflow` as a kept (frozen) workflow and a trigger's pins: stored as a reference to it plus the pins. */
  pinned?: PinnedRun;
}

/** A run (or, in lists, its summary) with its place in line while queued (1 = next). */
export type RunView<R extends RunSummary = RunRecord> = R & { queuePosition?: number };

export interface RunServiceDeps {
  storage: RunsStorage;
  journal: EventJournal;
  /** Where recorded runs go: this process's queue (embedded mode) or the BullMQ queue (queue mode). */
  dispatcher: RunDispatcher;
  /** Ends runs that never reached an engine (cancelled while waiting, left over by a dead process). */
  executor: RunExecutor;
  validator: WorkflowValidator;
  /** Where paused runs' requests are kept: a cancelled waiting run's are closed. */
  waits?: RunWaits;
  log: Logger;
}

/**
 * Runs workflows for the API: checks the request, records the run and hands it to the dispatcher,
 * which executes it here or on a queue worker (see `run-executor.ts`).
 */
export class RunService {
  private stopping = false;
  /**
   * Stored workflows as checked, with the version whose content they are: a stored revision never changes, so a
   * trigger firing many runs neither re-parses nor re-hashes it. Workflows calling skills are not kept (whether the
   * skill still exists is asked on every start).
   */
  private readonly checked = new LRUCache<string, { revision: string; workflow: Workflow; version: number }>({ max: CHECKED_WORKFLOWS });

  constructor(private readonly deps: RunServiceDeps) {}

  /** Where runs execute: this process (`embedded`) or queue workers (`queue`). */
  get mode(): RunDispatcher["mode"] {
    return this.deps.dispatcher.mode;
  }

  async start(request: StartRunRequest, sourceRunId?: string, fork?: ForkOrigin): Promise<Started> {
    const prepared = await this.prepare(request, sourceRunId, fork);
    await this.store(prepared);
    const queuePosition = await this.handOver(prepared);
    return { runId: prepared.record.id, status: "queued", queuePosition };
  }

  /**
   * Hands a stored run over for execution and answers its place in line; when that fails (Redis unreachable) the run
   * is ended `interrupted` rather than left queued forever, and SERVICE_UNAVAILABLE thrown.
   */
  async handOver(prepared: PreparedRun): Promise<number> {
    const { record, workflow, recorded } = prepared;
    try {
      return await this.deps.dispatcher.dispatch(record, workflow, recorded);
    } catch (error) {
      this.deps.log.error("dispatching a run failed", { runId: record.id, error: messageOf(error) });
      await this.deps.executor.finishUnstarted(record.id, "interrupted", "interrupted: the run could not be queued", INTERRUPTED);
      throw new ServiceError("SERVICE_UNAVAILABLE", "The run queue is unreachable; the run was not started. Retry shortly.", { reason: "QUEUE_UNAVAILABLE", runId: record.id });
    }
  }

  /**
   * Several runs handed over together (an eval run's cases): each checked and recorded as its own run, then one
   * hand-over for all (queue mode: one job, `../queue/run-worker.ts` runs them one after another). Answers per
   * request, in order, its run id or why it was not started; never throws for one request's fault.
   */
  async startBatch(requests: readonly StartRunRequest[]): Promise<BatchStart[]> {
    const answers: BatchStart[] = [];
    const prepared: PreparedRun[] = [];
    // Each stored workflow read once for the batch (an eval run's cases all run one), not once per run.
    const stored = new Map<string, StoredDocument<Workflow> | undefined>();
    for (const request of requests) {
      try {
        const { workflowId } = request;
        if (request.draft === undefined && request.stored === undefined && !stored.has(workflowId)) stored.set(workflowId, await this.deps.storage.workflows.get(workflowId));
        const read = request.draft === undefined ? (request.stored ?? stored.get(workflowId)) : undefined;
        const one = await this.prepare(read === undefined ? request : { ...request, stored: read });
        prepared.push(one);
        answers.push({ runId: one.record.id });
      } catch (error) {
        answers.push({ error: messageOf(error) });
      }
    }
    await Promise.all(prepared.map((one) => this.store(one)));
    if (prepared.length === 0) return answers;
    try {
      await this.deps.dispatcher.dispatchBatch(prepared.map(({ record, workflow }) => ({ record, workflow })));
    } catch (error) {
      this.deps.log.error("dispatching a batch of runs failed", { runs: prepared.length, error: messageOf(error) });
      for (const one of prepared) await this.deps.executor.finishUnstarted(one.record.id, "interrupted", "interrupted: the run could not be queued", INTERRUPTED);
      const why = "The run queue is unreachable; the run was not started. Retry shortly.";
      return answers.map((answer) => ("runId" in answer ? { error: why } : answer));
    }
    return answers;
  }

  /** Records a prepared run `queued` (inside the caller's transaction when there is one). */
  async store(prepared: PreparedRun): Promise<void> {
    await this.deps.storage.runs.create(prepared.record, prepared.workflow, prepared.pinned);
  }

  /** Hands a stored run over for execution; throws when the queue is unreachable (the run stays `queued`). */
  async dispatchStored(prepared: PreparedRun): Promise<void> {
    await this.deps.dispatcher.dispatch(prepared.record, prepared.workflow, prepared.recorded);
  }

  /**
   * Hands over again a run that is stored `queued` and never started (a process died after recording it): false when
   * it is not (it started, ended, or does not exist). Queue mode only adds a job under the run's id, which BullMQ
   * keeps once, and a worker executes only a `queued` run, so a second hand-over of a live run does nothing.
   */
  async redispatch(runId: string): Promise<boolean> {
    const { storage } = this.deps;
    const [record, workflow] = await Promise.all([storage.runs.get(runId), storage.runs.getWorkflow(runId)]);
    if (!record || !workflow || record.status !== "queued" || record.startedAt !== undefined) return false;
    await this.deps.dispatcher.dispatch(record, workflow);
    return true;
  }

  /** Checks a start request and builds its run record (nothing stored): what `start` records and dispatches. */
  async prepare(request: StartRunRequest, sourceRunId?: string, fork?: ForkOrigin): Promise<PreparedRun> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down and accepts no new runs; retry once it is back.");
    const { storage } = this.deps;
    let candidate: unknown;
    let revision: number;
    let storedKey: string | undefined;
    if (request.draft !== undefined) {
      candidate = request.draft;
      const draftId = typeof request.draft === "object" && request.draft !== null ? (request.draft as { id?: unknown }).id : undefined;
      if (draftId !== request.workflowId) {
        throw new ServiceError("VALIDATION_FAILED", `body.workflow.id is ${JSON.stringify(draftId)} but the path names workflow "${request.workflowId}"; they must match.`, {
          issues: [{ path: ["workflow", "id"], message: "must equal the workflow id in the path", code: "custom" }],
        });
      }
      // A fork names the revision of the run it forks; reading the stored workflow for it would be wasted.
      revision = fork?.revision ?? (await storage.workflows.get(request.workflowId))?.document.revision ?? 0;
    } else {
      const stored = request.stored ?? (await storage.workflows.get(request.workflowId));
      if (!stored) throw notFound("workflow", request.workflowId, "GET /api/workflows lists them; to run an unsaved workflow send it as body.workflow.");
      candidate = stored.document;
      revision = stored.document.revision;
      storedKey = storedRevision(stored);
    }
    // The check and version kept for exactly this stored revision, if any.
    const kept = storedKey === undefined ? undefined : this.checked.get(request.workflowId);
    const hit = kept !== undefined && kept.revision === storedKey ? kept : undefined;
    // Frozen when a second run reuses it (then the engine keeps its compiled graph): a revision run once pays no freeze.
    if (hit !== undefined) freezeWorkflow(hit.workflow);
    const validation = hit ? { ok: true as const, workflow: hit.workflow } : this.deps.validator.validate(candidate);
    if (!validation.ok) {
      throw new ServiceError(
        "VALIDATION_FAILED",
        `The workflow cannot run: ${validation.issues.length} problem(s), first: ${validation.issues[0]?.message ?? "invalid"}. Fix them (POST /api/workflows/validate lists them all).`,
        {
          issues: validation.issues,
        },
      );
    }
    const workflow = validation.workflow;
    const inputIssues = checkRunInputs(workflow, request.inputs);
    if (inputIssues.length > 0) {
      throw new ServiceError("VALIDATION_FAILED", `body.${inputIssues[0].path.join(".")}: ${inputIssues.map((i) => i.message).join("; ")}.`, { issues: inputIssues });
    }
    if (request.rerunFrom !== undefined && !workflow.nodes.some((n) => n.id === request.rerunFrom)) {
      throw new ServiceError("VALIDATION_FAILED", `body.rerunFrom: workflow "${workflow.id}" has no node "${request.rerunFrom}".`, {
        issues: [{ path: ["rerunFrom"], message: "unknown node id", code: "custom" }],
      });
    }
    let line: { full: boolean; limit: number };
    try {
      line = await this.deps.dispatcher.isFull();
    } catch (error) {
      this.deps.log.error("the run queue cannot be read", { error: messageOf(error) });
      throw new ServiceError("SERVICE_UNAVAILABLE", "The run queue is unreachable; the run was not started. Retry shortly.", { reason: "QUEUE_UNAVAILABLE" });
    }
    if (line.full) {
      throw new ServiceError("SERVICE_UNAVAILABLE", `The run queue is full (${line.limit} runs waiting); retry when some have finished.`, { reason: "QUEUE_FULL" });
    }

    const record: RunRecord = { id: newRunId(), workflowId: workflow.id, workflowRevision: revision, status: "queued", inputs: request.inputs, outputs: {}, createdAt: Date.now() };
    const workflowVersion = hit ? hit.version : await this.versionOf(workflow, storedKey === undefined ? undefined : revision);
    if (workflowVersion !== undefined) record.workflowVersion = workflowVersion;
    if (storedKey !== undefined && workflowVersion !== undefined && skillReferences(workflow).length === 0) this.keepChecked(workflow.id, storedKey, workflow, workflowVersion);
    // Pinned on a kept graph (frozen, so a reuse): the copy runs on it, and its run stores the kept workflow once.
    const running = request.pins === undefined ? workflow : pinned(workflow, request.pins);
    const pinnedRun = request.pins !== undefined && isFrozenWorkflow(workflow) ? { base: workflow, ...request.pins } : undefined;
    if (request.rerunFrom !== undefined) record.rerunFrom = request.rerunFrom;
    if (fork !== undefined) {
      record.forkOf = fork.forkOf;
      record.forkChanges = fork.forkChanges;
    }
    if (sourceRunId !== undefined) record.sourceRunId = sourceRunId;
    if (request.createdBy !== undefined) record.createdBy = request.createdBy;
    if (request.trigger !== undefined) record.trigger = request.trigger;
    return { record, workflow: running, ...(fork ? { recorded: fork.recorded } : {}), ...(pinnedRun ? { pinned: pinnedRun } : {}) };
  }

  private keepChecked(workflowId: string, revision: string, workflow: Workflow, version: number): void {
    // Every later run of this revision shares it; `prepare` freezes it on the first reuse.
    this.checked.set(workflowId, { revision, workflow, version });
  }

  /**
   * The saved version whose content is exactly what runs (a draft no save has: none). A stored revision's is read
   * by revision; its content is hashed only when a save came in between.
   */
  private async versionOf(workflow: Workflow, storedRevision?: number): Promise<number | undefined> {
    const { versions } = this.deps.storage.workflows;
    const stored = storedRevision === undefined ? undefined : await versions.ofRevision(workflow.id, storedRevision);
    return stored ?? (await versions.numberOf(workflow.id, versionContent({ ...workflow, revision: 0 })));
  }

  /** Runs a past run again: the same workflow version and inputs, optionally re-running from a node. */
  /** What keeps a workflow from running (none when it can run): the check a run makes before it starts. */
  problemsOf(workflow: Workflow): ValidationIssue[] {
    const validation = this.deps.validator.validate(workflow);
    return validation.ok ? [] : validation.issues;
  }

  async rerun(runId: string, options: { rerunFrom?: string; createdBy?: string }): Promise<Started> {
    const source = await this.deps.storage.runs.get(runId);
    if (!source) throw notFound("run", runId);
    const workflow = await this.deps.storage.runs.getWorkflow(runId);
    if (!workflow) {
      throw new ServiceError("CONFLICT", `Run "${runId}" ran a workflow generated on the fly (workflow "${source.workflowId}", an agent's tool call) that was not kept; it cannot be repeated.`, {
        workflowId: source.workflowId,
      });
    }
    return this.start({ workflowId: source.workflowId, inputs: source.inputs, draft: workflow, rerunFrom: options.rerunFrom, createdBy: options.createdBy }, runId);
  }

  /**
   * Forks a past run at a node: a new run of the graph that run ran, with the node's settings, inputs or pinned
   * outputs changed; every node that does not depend on a change takes its recorded outputs from the run (nothing of
   * it is executed again), the changed node and what depends on it run. Refuses before recording anything when a
   * node the fork needs has no recorded output (CONFLICT, `details.reason` NOT_RECORDED, naming the node).
   */
  async fork(runId: string, point: ForkPoint, createdBy?: string): Promise<Started> {
    const source = await this.deps.storage.runs.get(runId);
    if (!source) throw notFound("run", runId, "GET /api/runs lists recent runs.");
    const ran = await this.deps.storage.runs.getWorkflow(runId);
    if (!ran) {
      throw new ServiceError("CONFLICT", `Run "${runId}" ran a workflow generated on the fly (workflow "${source.workflowId}", an agent's tool call) that was not kept; it cannot be forked.`, {
        workflowId: source.workflowId,
      });
    }
    const workflow = forkWorkflow(ran, point);
    const plan = recordedNodes(workflow, point, runId, await this.deps.storage.observations.listByRun(runId));
    if (!plan.ok) throw notRecordedError(plan, runId);
    return this.start({ workflowId: source.workflowId, inputs: source.inputs, draft: workflow, rerunFrom: point.at, ...(createdBy !== undefined ? { createdBy } : {}) }, undefined, {
      forkOf: { runId, nodeId: point.at },
      forkChanges: point.changes,
      revision: source.workflowRevision,
      recorded: plan.recorded,
    });
  }

  /** A run with its observations and the workflow exactly as it ran (absent for one generated on the fly). */
  async get(runId: string): Promise<{ run: RunView; observations: Observation[]; workflow?: Workflow }> {
    const record = await this.deps.storage.runs.get(runId);
    if (!record) throw notFound("run", runId, "GET /api/runs lists recent runs.");
    const [observations, workflow] = await Promise.all([this.deps.storage.observations.listByRun(runId), this.deps.storage.runs.getWorkflow(runId)]);
    return { run: this.view(record), observations, ...(workflow ? { workflow } : {}) };
  }

  /** Summaries, newest first: no inputs or outputs (`GET /api/runs/:id` has them). */
  async list(query: RunListQuery): Promise<RunView<RunSummary>[]> {
    return (await this.deps.storage.runs.list(query)).map((r) => this.view(r));
  }

  private view<R extends RunSummary>(record: R): RunView<R> {
    if (record.status !== "queued") return record;
    const position = this.deps.dispatcher.position(record.id);
    return position === undefined ? record : { ...record, queuePosition: position };
  }

  async cancel(runId: string): Promise<void> {
    const record = await this.deps.storage.runs.get(runId);
    if (!record) throw notFound("run", runId);
    // A waiting run is held by nobody: taken out of `waiting` (once, as a resume would), it ends here.
    if (record.status === "waiting" && (await this.deps.storage.runs.takeWaiting(runId))) {
      await this.deps.waits?.close(runId, Date.now());
      await this.deps.executor.finishUnstarted(runId, "cancelled", "cancelled while waiting for a decision", undefined, record.startedAt);
      return;
    }
    if (record.status === "queued" || record.status === "running") {
      let outcome: DispatchCancel;
      try {
        outcome = await this.deps.dispatcher.cancel(runId);
      } catch (error) {
        this.deps.log.error("cancelling through the run queue failed", { runId, error: messageOf(error) });
        throw new ServiceError("SERVICE_UNAVAILABLE", `The run queue is unreachable, so run "${runId}" could not be cancelled; retry shortly.`, { reason: "QUEUE_UNAVAILABLE" });
      }
      switch (outcome) {
        case "removed":
          await this.deps.executor.finishUnstarted(runId, "cancelled", "cancelled before it started");
          return;
        case "signalled":
          return;
        case "unknown":
          break;
        default: {
          const never: never = outcome;
          return never;
        }
      }
    }
    // It ended meanwhile, or nobody holds it: answer from what is stored now.
    const now = (await this.deps.storage.runs.get(runId)) ?? record;
    if (now.status === "cancelled") return;
    throw new ServiceError("CONFLICT", `Run "${runId}" already ended (${now.status}); there is nothing to cancel.`, { status: now.status });
  }

  /**
   * Resumes a `waiting` run (a decision was recorded): the same run id, dispatched again like a new run (embedded: this
   * process; queue mode: a worker). Its executor takes every node that ended in earlier executions and every decided
   * pause as recorded (`RunExecutor`), so only what follows a decision runs. False when the run is not waiting (another
   * process resumed it, or it ended): the caller tries again once it waits.
   */
  async resume(runId: string): Promise<boolean> {
    const { storage } = this.deps;
    if (!(await storage.runs.takeWaiting(runId))) return false;
    const [record, workflow] = await Promise.all([storage.runs.get(runId), storage.runs.getWorkflow(runId)]);
    if (!record || !workflow) {
      await this.deps.executor.finishUnstarted(runId, "interrupted", "interrupted: its workflow was not stored, so it cannot resume", INTERRUPTED);
      return true;
    }
    try {
      await this.deps.dispatcher.dispatch(record, workflow);
    } catch (error) {
      this.deps.log.error("dispatching a resumed run failed", { runId, error: messageOf(error) });
      await this.deps.executor.finishUnstarted(runId, "interrupted", "interrupted: the resumed run could not be queued", INTERRUPTED, record.startedAt);
    }
    return true;
  }

  /**
   * Marks runs a killed server left queued or running as interrupted, with a closing event each. A schedule's run that
   * never started is owed (its tick was claimed with it, `../triggers/scheduler.ts`): it is dispatched again instead.
   */
  async recoverInterrupted(): Promise<string[]> {
    // In the queue mode unfinished runs may be running on live workers; the workers' stalled-job handling ends those of dead ones.
    if (!this.deps.dispatcher.ownsUnfinishedRuns) return [];
    const unfinished = await this.deps.storage.runs.listUnfinished();
    const interrupted: string[] = [];
    for (const run of unfinished) {
      if (run.status === "queued" && run.startedAt === undefined && run.trigger?.kind === "schedule" && (await this.redispatch(run.id))) continue;
      await this.deps.executor.finishUnstarted(run.id, "interrupted", `interrupted: the server stopped while this run was ${run.status}`, INTERRUPTED, run.startedAt);
      interrupted.push(run.id);
    }
    return interrupted;
  }

  /** Stops taking runs, lets running ones finish for `graceMs`, then stops them; queued ones end interrupted. */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    await this.deps.dispatcher.shutdown(graceMs);
    await this.deps.journal.flush();
  }
}
