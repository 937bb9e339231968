import { randomUUID } from "node:crypto";
import type { ExecutionEngine } from "@weft/agent-runtime";
import type { WorkflowValidator } from "../workflows/workflow-validator.ts";
import type { Logger, NodeError, Observation, RunResult, Workflow } from "@weft/types";
import type { Storage } from "../storage/storage.ts";
import type { RunListQuery, RunRecord } from "../storage/run-repository.ts";
import type { EventJournal } from "../events/event-journal.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { ObservationTracker } from "./observation-tracker.ts";
import type { RunQueue } from "./run-queue.ts";
import { checkRunInputs } from "./check-inputs.ts";
import { engineError, messageOf } from "@weft/types";

export interface StartRunRequest {
  workflowId: string;
  inputs: Record<string, unknown>;
  rerunFrom?: string;
  /** An unsaved version of the workflow to run instead of the stored one. */
  draft?: unknown;
}

export interface RunView extends RunRecord {
  /** Place in line while queued (1 = next). */
  queuePosition?: number;
}

export interface RunServiceDeps {
  storage: Storage;
  journal: EventJournal;
  queue: RunQueue;
  validator: WorkflowValidator;
  /** The engine a run of this workflow uses (its output cache is the workflow's). */
  engineFor(workflowId: string): ExecutionEngine;
  log: Logger;
}

const INTERRUPTED: NodeError = engineError("INTERRUPTED", "The server stopped while this run was executing; re-run it (POST /api/runs/:id/rerun).");

/**
 * Runs workflows for the API: checks the request, records the run, queues it, executes it with the
 * engine, and journals its events, observations and status as it goes.
 */
export class RunService {
  private stopping = false;
  /** Runs whose cancellation a client asked for (as opposed to the shutdown stopping them). */
  private readonly cancelRequested = new Set<string>();

  constructor(private readonly deps: RunServiceDeps) {}

  async start(request: StartRunRequest, sourceRunId?: string): Promise<{ runId: string; status: "queued"; queuePosition: number }> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down and accepts no new runs; retry once it is back.");
    const { storage } = this.deps;
    let candidate: unknown;
    let revision: number;
    if (request.draft !== undefined) {
      candidate = request.draft;
      const draftId = typeof request.draft === "object" && request.draft !== null ? (request.draft as { id?: unknown }).id : undefined;
      if (draftId !== request.workflowId) {
        throw new ServiceError("VALIDATION_FAILED", `body.workflow.id is ${JSON.stringify(draftId)} but the path names workflow "${request.workflowId}"; they must match.`, {
          issues: [{ path: ["workflow", "id"], message: "must equal the workflow id in the path", code: "custom" }],
        });
      }
      const stored = await storage.workflows.get(request.workflowId);
      revision = stored?.document.revision ?? 0;
    } else {
      const stored = await storage.workflows.get(request.workflowId);
      if (!stored) throw notFound("workflow", request.workflowId, "GET /api/workflows lists them; to run an unsaved workflow send it as body.workflow.");
      candidate = stored.document;
      revision = stored.document.revision;
    }
    const validation = this.deps.validator.validate(candidate);
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
    if (this.deps.queue.isFull()) {
      throw new ServiceError("SERVICE_UNAVAILABLE", `The run queue is full (${this.deps.queue.maxWaiting} runs waiting); retry when some have finished.`, { reason: "QUEUE_FULL" });
    }

    const record: RunRecord = { id: randomUUID(), workflowId: workflow.id, workflowRevision: revision, status: "queued", inputs: request.inputs, outputs: {}, createdAt: Date.now() };
    if (request.rerunFrom !== undefined) record.rerunFrom = request.rerunFrom;
    if (sourceRunId !== undefined) record.sourceRunId = sourceRunId;
    await storage.runs.create(record, workflow);
    const queuePosition = this.deps.queue.enqueue(record.id, (signal) => this.execute(record, workflow, signal));
    return { runId: record.id, status: "queued", queuePosition };
  }

  /** Runs a past run again: the same workflow version and inputs, optionally re-running from a node. */
  async rerun(runId: string, options: { rerunFrom?: string }): Promise<{ runId: string; status: "queued"; queuePosition: number }> {
    const source = await this.deps.storage.runs.get(runId);
    if (!source) throw notFound("run", runId);
    const workflow = await this.deps.storage.runs.getWorkflow(runId);
    if (!workflow) {
      throw new ServiceError("CONFLICT", `Run "${runId}" ran a workflow generated on the fly (workflow "${source.workflowId}", an agent's tool call) that was not kept; it cannot be repeated.`, {
        workflowId: source.workflowId,
      });
    }
    return this.start({ workflowId: source.workflowId, inputs: source.inputs, draft: workflow, rerunFrom: options.rerunFrom }, runId);
  }

  /** A run with its observations and the workflow exactly as it ran (absent for one generated on the fly). */
  async get(runId: string): Promise<{ run: RunView; observations: Observation[]; workflow?: Workflow }> {
    const record = await this.deps.storage.runs.get(runId);
    if (!record) throw notFound("run", runId, "GET /api/runs lists recent runs.");
    const [observations, workflow] = await Promise.all([this.deps.storage.observations.listByRun(runId), this.deps.storage.runs.getWorkflow(runId)]);
    return { run: this.view(record), observations, ...(workflow ? { workflow } : {}) };
  }

  async list(query: RunListQuery): Promise<RunView[]> {
    return (await this.deps.storage.runs.list(query)).map((r) => this.view(r));
  }

  private view(record: RunRecord): RunView {
    if (record.status !== "queued") return record;
    const position = this.deps.queue.position(record.id);
    return position === undefined ? record : { ...record, queuePosition: position };
  }

  async cancel(runId: string): Promise<void> {
    const record = await this.deps.storage.runs.get(runId);
    if (!record) throw notFound("run", runId);
    if (this.deps.queue.removeWaiting(runId)) {
      await this.finishUnstarted(runId, "cancelled", "cancelled before it started");
      return;
    }
    if (this.deps.queue.isRunning(runId)) {
      this.cancelRequested.add(runId);
      this.deps.queue.abort(runId, "cancelled by request");
      return;
    }
    if (record.status === "cancelled") return;
    throw new ServiceError("CONFLICT", `Run "${runId}" already ended (${record.status}); there is nothing to cancel.`, { status: record.status });
  }

  /** Marks runs a killed server left queued or running as interrupted, with a closing event each. */
  async recoverInterrupted(): Promise<string[]> {
    const unfinished = await this.deps.storage.runs.listUnfinished();
    for (const run of unfinished) {
      await this.finishUnstarted(run.id, "interrupted", `interrupted: the server stopped while this run was ${run.status}`, INTERRUPTED, run.startedAt);
    }
    return unfinished.map((r) => r.id);
  }

  /** Stops taking runs, lets running ones finish for `graceMs`, then stops them; queued ones end interrupted. */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    const { queue } = this.deps;
    for (const id of queue.takeWaiting()) await this.finishUnstarted(id, "interrupted", "interrupted: the server shut down before this run started", INTERRUPTED);
    if (queue.runningCount > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([queue.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const id of queue.runningIds()) queue.abort(id, "the server is shutting down");
      await queue.idle();
    }
    await this.deps.journal.flush();
  }

  /** Ends a run that never reached the engine (or whose process died) with a closing event. */
  private async finishUnstarted(runId: string, status: "cancelled" | "interrupted", reason: string, error?: NodeError, startedAt?: number): Promise<void> {
    const { journal } = this.deps;
    const now = Date.now();
    await journal.open(runId);
    journal.append(runId, { type: "run.cancelled", runId, reason, durationMs: startedAt !== undefined ? now - startedAt : 0 });
    journal.updateRun({ id: runId, status, finishedAt: now, ...(error ? { error } : {}) });
    await journal.flush();
    journal.close(runId);
  }

  private async execute(record: RunRecord, workflow: Workflow, signal: AbortSignal): Promise<void> {
    const { journal } = this.deps;
    const runId = record.id;
    await journal.open(runId);
    journal.updateRun({ id: runId, status: "running", startedAt: Date.now() });
    const tracker = new ObservationTracker(runId, (ord, observation) => journal.addObservation(ord, observation));
    let result: RunResult;
    try {
      result = await this.deps.engineFor(workflow.id).run(workflow, {
        runId,
        inputs: record.inputs,
        signal,
        ...(record.rerunFrom !== undefined ? { rerunFrom: record.rerunFrom } : {}),
        onEvent: (event) => tracker.onEvent(journal.append(runId, event)),
      });
    } catch (thrown) {
      // The engine reports failures in its result; reaching this is a bug, recorded rather than lost.
      const error: NodeError = { code: "INTERNAL", message: `The engine failed unexpectedly: ${messageOf(thrown)}` };
      this.deps.log.error("engine threw", { runId, error: error.message });
      journal.append(runId, { type: "run.failed", runId, error, outputs: {}, durationMs: 0 });
      journal.updateRun({ id: runId, status: "failed", finishedAt: Date.now(), error });
      await journal.flush();
      journal.close(runId);
      return;
    }
    const interrupted = result.status === "cancelled" && this.stopping && !this.cancelRequested.has(runId);
    this.cancelRequested.delete(runId);
    journal.replaceObservations(runId, result.observations);
    const error = interrupted ? INTERRUPTED : result.error;
    journal.updateRun({
      id: runId,
      status: interrupted ? "interrupted" : result.status,
      outputs: result.outputs,
      finishedAt: Date.now(),
      durationMs: result.durationMs,
      ...(error ? { error } : {}),
    });
    await journal.flush();
    journal.close(runId);
  }
}
