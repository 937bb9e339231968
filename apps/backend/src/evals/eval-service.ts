import { randomUUID } from "node:crypto";
import {
  MAX_EVAL_CASES,
  WorkflowSchema,
  isAgentCase,
  messageOf,
  type AgentEvalCase,
  type EvalCase,
  type EvalCaseResult,
  type EvalRun,
  type EvalRunRequest,
  type EvalSide,
  type EvalSuite,
  type EvalSuiteInput,
  type Logger,
  type Workflow,
} from "@weft/types";
import { notFound, ServiceError } from "../service-error.ts";
import type { WorkflowTable } from "../workflows/workflow-repository.ts";
import type { RunRepository } from "../events/run-repository.ts";
import type { EventJournal } from "../events/event-journal.ts";
import type { Judge } from "./eval-assertions.ts";
import type { EvalRepository } from "./eval-repository.ts";
import { executeCases, executeEvalRun, sideWorkflow, type CaseRunPort, type SideWorkflow } from "./eval-runner.ts";
import type { AgentCases } from "./agent-cases.ts";

export interface EvalServiceDeps {
  repo: EvalRepository;
  workflows: WorkflowTable;
  runs: Pick<RunRepository, "get">;
  journal: EventJournal;
  port: CaseRunPort;
  /** Agent suites' cases (agent-cases.ts); without it, a suite of an agent is refused. */
  agents?: AgentCases;
  judgeFor(userId: string | undefined): Judge;
  /** Case runs of one eval run at a time unless the request says otherwise. */
  defaultConcurrency: number;
  log: Logger;
}

const DEFAULT_CASE_NAME = (runId: string) => `From run ${runId.slice(0, 8)}`;

/** Eval suites: stored cases with assertions, run against a skill's versions (or LLM profiles), one side or two. */
export class EvalService {
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly deps: EvalServiceDeps) {}

  listSuites(target?: { kind: string; id: string }): Promise<EvalSuite[]> {
    return this.deps.repo.listSuites(target);
  }

  async getSuite(id: string): Promise<EvalSuite> {
    const suite = await this.deps.repo.getSuite(id);
    if (!suite) throw notFound("eval suite", id, "GET /api/evals/suites lists them.");
    return suite;
  }

  async createSuite(input: EvalSuiteInput, createdBy: string | undefined): Promise<EvalSuite> {
    await this.requireTarget(input);
    const now = Date.now();
    const suite: EvalSuite = { id: randomUUID(), ...input, ...(createdBy !== undefined ? { createdBy } : {}), createdAt: now, updatedAt: now };
    await this.deps.repo.putSuite(suite);
    return suite;
  }

  async updateSuite(id: string, input: EvalSuiteInput): Promise<EvalSuite> {
    const current = await this.getSuite(id);
    await this.requireTarget(input);
    const suite: EvalSuite = { ...current, ...input, updatedAt: Date.now() };
    await this.deps.repo.putSuite(suite);
    return suite;
  }

  async deleteSuite(id: string): Promise<void> {
    if (!(await this.deps.repo.deleteSuite(id))) throw notFound("eval suite", id, "GET /api/evals/suites lists them.");
  }

  /** Adds a case made from a completed run of the suite's skill: its inputs, and its outputs as the expected value. */
  async caseFromRun(suiteId: string, runId: string, name: string | undefined): Promise<{ suite: EvalSuite; case: EvalCase }> {
    const suite = await this.getSuite(suiteId);
    if (suite.target.kind !== "workflow")
      throw new ServiceError("VALIDATION_FAILED", `Suite "${suite.name}" tests agent "${suite.target.id}": save a conversation to it (POST /api/evals/suites/${suite.id}/cases/from-conversation).`);
    const run = await this.deps.runs.get(runId);
    if (!run) throw notFound("run", runId, "GET /api/runs lists them.");
    if (run.workflowId !== suite.target.id) {
      throw new ServiceError("VALIDATION_FAILED", `Run "${runId}" ran workflow "${run.workflowId}", but suite "${suite.name}" tests "${suite.target.id}"; save it to a suite of that workflow.`, {
        issues: [{ path: ["runId"], message: "the run is of another workflow", code: "custom" }],
      });
    }
    if (run.status !== "completed") {
      throw new ServiceError("VALIDATION_FAILED", `Run "${runId}" ended ${run.status}: only a completed run's outputs can be a case's expected value. Pick a completed run.`, {
        issues: [{ path: ["runId"], message: `the run is ${run.status}`, code: "custom" }],
      });
    }
    if (suite.cases.length >= MAX_EVAL_CASES) throw new ServiceError("VALIDATION_FAILED", `Suite "${suite.name}" already has ${MAX_EVAL_CASES} cases, the most a suite holds; remove one first.`);
    const taken = new Set(suite.cases.map((c) => c.id));
    let n = suite.cases.length + 1;
    while (taken.has(`case-${n}`)) n++;
    const testCase: EvalCase = { id: `case-${n}`, name: name ?? DEFAULT_CASE_NAME(runId), inputs: run.inputs, assertions: [{ kind: "equals", expected: run.outputs }] };
    const updated: EvalSuite = { ...suite, cases: [...suite.cases, testCase], updatedAt: Date.now() };
    await this.deps.repo.putSuite(updated);
    return { suite: updated, case: testCase };
  }

  /** "Save as test case" from an agent conversation: its user messages, its final answer expected (an `equals` the user then edits). */
  async caseFromConversation(suiteId: string, conversationId: string, name: string | undefined): Promise<{ suite: EvalSuite; case: AgentEvalCase }> {
    const suite = await this.getSuite(suiteId);
    if (suite.target.kind !== "agent")
      throw new ServiceError("VALIDATION_FAILED", `Suite "${suite.name}" tests workflow "${suite.target.id}": save a run to it (POST /api/evals/suites/${suite.id}/cases/from-run).`);
    if (suite.cases.length >= MAX_EVAL_CASES) throw new ServiceError("VALIDATION_FAILED", `Suite "${suite.name}" already has ${MAX_EVAL_CASES} cases, the most a suite holds; remove one first.`);
    const testCase = await this.agentCases().caseFromConversation(suite, conversationId, name, new Set(suite.cases.map((c) => c.id)));
    const updated: EvalSuite = { ...suite, cases: [...suite.cases, testCase], updatedAt: Date.now() };
    await this.deps.repo.putSuite(updated);
    return { suite: updated, case: testCase };
  }

  /** Starts an eval run in the background: its record at once (status `running`); progress on its event stream. */
  async startRun(suiteId: string, request: EvalRunRequest, createdBy: string | undefined): Promise<EvalRun> {
    const suite = await this.getSuite(suiteId);
    if (suite.cases.length === 0) throw new ServiceError("VALIDATION_FAILED", `Suite "${suite.name}" has no cases to run; add one (PUT /api/evals/suites/${suite.id}) first.`);
    const sides: EvalSide[] = [request.against ?? {}, ...(request.compare ? [request.compare] : [])];
    const loop = await this.caseRunner(suite, sides, createdBy);
    const run: EvalRun = {
      id: randomUUID(),
      suiteId: suite.id,
      suiteName: suite.name,
      status: "running",
      cases: suite.cases.length,
      done: 0,
      sides: sides.map((side) => ({ side: { ...side }, passed: 0, failed: 0, passRate: 0, results: [] })),
      ...(createdBy !== undefined ? { createdBy } : {}),
      createdAt: Date.now(),
    };
    await this.deps.repo.putRun(run);
    const { journal } = this.deps;
    await journal.open(run.id);
    const total = suite.cases.length * sides.length;
    const report = {
      progress: (current: EvalRun, side: number, result: EvalCaseResult) =>
        void journal.append(current.id, { type: "eval.progress", evalRunId: current.id, caseId: result.caseId, side, pass: result.pass, done: current.done, total }),
      store: (current: EvalRun) => this.deps.repo.putRun(current),
    };
    const work = loop({ run, concurrency: request.concurrency ?? this.deps.defaultConcurrency, report, log: this.deps.log })
      .catch(async (error: unknown) => {
        this.deps.log.error("an eval run failed", { evalRunId: run.id, error: messageOf(error) });
        run.status = "failed";
        run.error = messageOf(error);
        run.finishedAt = Date.now();
        await this.deps.repo.putRun(run).catch(() => undefined);
      })
      .finally(async () => {
        journal.append(run.id, { type: "eval.finished", evalRunId: run.id, status: run.status, passRates: run.sides.map((s) => s.passRate) });
        await journal.flush();
        journal.close(run.id);
      });
    this.active.add(work);
    void work.finally(() => this.active.delete(work));
    return structuredClone(run);
  }

  async getRun(id: string): Promise<EvalRun> {
    const run = await this.deps.repo.getRun(id);
    if (!run) throw notFound("eval run", id, "GET /api/evals/suites/:id/runs lists a suite's runs.");
    return run;
  }

  /** Whether an eval run has this id (its progress stream can be subscribed to before its first event). */
  async knows(id: string): Promise<boolean> {
    return (await this.deps.repo.getRun(id)) !== undefined;
  }

  async listRuns(suiteId: string, limit: number): Promise<EvalRun[]> {
    await this.getSuite(suiteId);
    return this.deps.repo.listRuns(suiteId, limit);
  }

  /** Marks eval runs a stopped process left running as failed (their case runs were interrupted with it). */
  async recover(): Promise<void> {
    const count = await this.deps.repo.failUnfinished("The server stopped while this eval run was running; run the suite again.");
    if (count > 0) this.deps.log.warn("eval runs interrupted by the previous shutdown", { count });
  }

  /** Waits for the eval runs of this process to end (their case runs end with the runs domain's shutdown). */
  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.active]);
  }

  private async requireTarget(input: EvalSuiteInput): Promise<void> {
    switch (input.target.kind) {
      case "workflow":
        if (!(await this.deps.workflows.get(input.target.id))) throw notFound("workflow", input.target.id, "A suite tests a stored workflow (skill); GET /api/workflows lists them.");
        return;
      case "agent":
        await this.agentCases().requireAgent(input.target.id);
        return;
    }
  }

  private agentCases(): AgentCases {
    if (!this.deps.agents) throw new ServiceError("CONFLICT", "This server runs no agents, so it has no agent suites.");
    return this.deps.agents;
  }

  /** The eval run's loop for the suite's kind of target, its sides checked (and resolved) before anything runs. */
  private async caseRunner(suite: EvalSuite, sides: readonly EvalSide[], createdBy: string | undefined) {
    const judge = this.deps.judgeFor(createdBy);
    type Loop = (options: Pick<Parameters<typeof executeCases>[0], "run" | "concurrency" | "report" | "log">) => Promise<void>;
    switch (suite.target.kind) {
      case "agent": {
        const agents = this.agentCases();
        const agentSides = await agents.sides(suite, sides);
        const cases = suite.cases.filter(isAgentCase);
        const agentId = suite.target.id;
        const loop: Loop = (options) => executeCases({ ...options, caseCount: cases.length, runOne: (side, index) => agents.run(agentId, agentSides[side], cases[index], createdBy, judge) });
        return loop;
      }
      case "workflow": {
        const workflows: SideWorkflow[] = [];
        for (const [i, side] of sides.entries()) {
          // The stored workflow as it is runs as stored (its check is kept across runs); a version or a profile runs as a draft.
          const stored = side.version === undefined && side.profileId === undefined;
          workflows.push({ workflowId: suite.target.id, ...(stored ? {} : { draft: sideWorkflow(await this.sideContent(suite, side, i === 0 ? "against" : "compare"), side) }) });
        }
        if (workflows.every((w) => w.draft === undefined)) await this.sideContent(suite, {}, "against");
        const cases: EvalCase[] = suite.cases.filter((c): c is EvalCase => !isAgentCase(c));
        const loop: Loop = (options) => executeEvalRun({ ...options, cases, workflows, createdBy, port: this.deps.port, judge });
        return loop;
      }
    }
  }

  /** The workflow a side runs: its saved version, or the stored workflow. */
  private async sideContent(suite: EvalSuite, side: EvalSide, field: string): Promise<Workflow> {
    const id = suite.target.id;
    if (side.version === undefined) {
      const stored = await this.deps.workflows.get(id);
      if (!stored) throw notFound("workflow", id, `Suite "${suite.name}" tests it, but it was deleted; point the suite at another workflow.`);
      return stored.document;
    }
    const found = await this.deps.workflows.versions.get(id, side.version);
    if (!found) {
      throw new ServiceError("NOT_FOUND", `body.${field}.version: workflow "${id}" has no version ${side.version}; GET /api/workflows/${id}/versions lists them.`, {
        issues: [{ path: [field, "version"], message: "no such version", code: "custom" }],
      });
    }
    const parsed = WorkflowSchema.safeParse({ ...(found.content as object), revision: 0 });
    if (!parsed.success)
      throw new ServiceError("VALIDATION_FAILED", `Version ${side.version} of workflow "${id}" is not a workflow this server can run: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
    return parsed.data;
  }
}
