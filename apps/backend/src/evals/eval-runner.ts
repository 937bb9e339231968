import type { EvalCase, EvalCaseResult, EvalRun, EvalSide, Logger, Workflow } from "@weft/types";
import { messageOf } from "@weft/types";
import { checkAssertion, type Judge } from "./eval-assertions.ts";

/** What a side runs: the stored workflow, or a draft (a saved version's content, maybe with another LLM profile). */
export interface SideWorkflow {
  workflowId: string;
  draft?: Workflow;
}

/** A finished case run as the runner reads it. */
export interface FinishedRun {
  status: string;
  outputs: Record<string, unknown>;
  error?: string;
  durationMs: number;
  steps: number;
  workflowVersion?: number;
  /** Tokens and cost of the run's LLM calls (costUsd null: a price is unknown). */
  tokens: number;
  costUsd: number | null;
}

/** What the runner needs of the runs domain and the usage records (wired in index.ts). */
export interface CaseRunPort {
  /** Cases go out in batches (`startBatch`, queue mode: one job each) rather than one `start` each. */
  readonly batched: boolean;
  /** Starts one run of the side's workflow with these inputs; its id. */
  start(workflow: SideWorkflow, inputs: Record<string, unknown>, createdBy: string | undefined): Promise<string>;
  /** Starts a run per inputs, handed over together, executed one after another; per run its id or why it did not start. */
  startBatch(workflow: SideWorkflow, inputs: ReadonlyArray<Record<string, unknown>>, createdBy: string | undefined): Promise<Array<{ runId: string } | { error: string }>>;
  /** Resolves when the run has ended, with what it did and used. */
  finished(runId: string): Promise<FinishedRun>;
}

/** Where the runner reports: progress per case run, and the record (stored now and then, and at the end). */
export interface EvalRunReport {
  progress(run: EvalRun, side: number, result: EvalCaseResult): void;
  store(run: EvalRun): Promise<void>;
}

/** A side's workflow: the version's content, with every LLM node's profile replaced when the side names one. */
export function sideWorkflow(content: Workflow, side: EvalSide): Workflow {
  if (side.profileId === undefined) return content;
  const profileId = side.profileId;
  return { ...content, nodes: content.nodes.map((n) => (n.type.startsWith("llm:") ? { ...n, config: { ...n.config, profileId } } : n)) };
}

/** Runs one case (`start` starts its run, or throws why not) and checks its assertions. */
async function runCase(port: CaseRunPort, start: () => Promise<string>, testCase: EvalCase, judge: Judge): Promise<CaseOutcome> {
  const base = { caseId: testCase.id, name: testCase.name };
  const began = Date.now();
  let runId: string;
  try {
    runId = await start();
  } catch (error) {
    const message = messageOf(error);
    return {
      ...base,
      pass: false,
      runStatus: "not_started",
      error: message,
      durationMs: Date.now() - began,
      tokens: 0,
      costUsd: null,
      assertions: [{ kind: "run", pass: false, message: `the case's run could not start: ${message}` }],
    };
  }
  const ended = await port.finished(runId);
  const usage = { tokens: ended.tokens, costUsd: ended.costUsd };
  const common = {
    ...base,
    runId,
    runStatus: ended.status,
    outputs: ended.outputs,
    durationMs: ended.durationMs,
    tokens: usage.tokens,
    costUsd: usage.costUsd,
    ...(ended.workflowVersion !== undefined ? { version: ended.workflowVersion } : {}),
  };
  if (ended.status !== "completed") {
    const why = `the case's run ended ${ended.status}${ended.error ? `: ${ended.error}` : ""}`;
    return { ...common, pass: false, error: why, assertions: [{ kind: "run", pass: false, message: why }] };
  }
  const actual = { outputs: ended.outputs, steps: ended.steps, tokens: usage.tokens, costUsd: usage.costUsd };
  const assertions = [];
  for (const assertion of testCase.assertions) assertions.push(await checkAssertion(assertion, actual, judge));
  return { ...common, pass: assertions.every((a) => a.pass), assertions };
}

/** How often at most the growing record is rewritten while cases finish (the end is always stored). */
const STORE_EVERY_MS = 500;
/**
 * And at most this share of the time: the record holds every result so far, so storing it costs more as the run
 * grows (1,000 results: tens of milliseconds redacted and written), and a fixed interval made it a growing tax.
 */
const STORE_SHARE = 0.05;

/**
 * Runs every case on every side, `concurrency` case runs at a time, filling `run` in place (results in case order)
 * and reporting each finished case. Never throws: a case that cannot run fails with the reason.
 */
export async function executeEvalRun(options: {
  run: EvalRun;
  cases: readonly EvalCase[];
  workflows: readonly SideWorkflow[];
  concurrency: number;
  createdBy: string | undefined;
  port: CaseRunPort;
  judge: Judge;
  report: EvalRunReport;
  log: Logger;
}): Promise<void> {
  const { cases, workflows, port, judge, createdBy } = options;
  if (!port.batched) {
    await executeCases({ ...options, caseCount: cases.length, runOne: (side, index) => runCase(port, () => port.start(workflows[side], cases[index].inputs, createdBy), cases[index], judge) });
    return;
  }
  const starts = batchStarts({ ...options, sides: workflows.length });
  // Every case is awaited at once; `batchStarts` bounds what runs: `concurrency` batches, each one case after another.
  await executeCases({
    ...options,
    caseCount: cases.length,
    concurrency: cases.length * workflows.length,
    runOne: (side, index) => starts(side, index, (start) => runCase(port, start, cases[index], judge)),
  });
}

/** Most cases in one batch (the queue's own bound, MAX_RUN_BATCH in ../queue/queue-names.ts, is higher). */
const MAX_CASES_PER_BATCH = 50;
/** Batches per concurrency slot: enough that the workers' slots stay busy while the last batches finish. */
const BATCHES_PER_SLOT = 4;

/**
 * Queue mode: each side's cases in batches of ceil(cases / (concurrency × 4)) (at most MAX_CASES_PER_BATCH), at
 * most `concurrency` batches started and not yet ended at a time, in case order. Each batch is one job, its cases
 * run one after another on a worker, so at most `concurrency` case runs execute at once, as in the embedded mode.
 * Answers `(side, index, judge)`: `judge` gets the case's start and resolves with its outcome; the batch's slot is
 * freed once each of its cases is judged.
 */
function batchStarts(options: { cases: readonly EvalCase[]; sides: number; workflows: readonly SideWorkflow[]; concurrency: number; createdBy: string | undefined; port: CaseRunPort }) {
  const { cases, port, workflows, createdBy } = options;
  const slots = Math.max(1, options.concurrency);
  const size = Math.min(MAX_CASES_PER_BATCH, Math.max(1, Math.ceil((cases.length * options.sides) / (slots * BATCHES_PER_SLOT))));
  let free = slots;
  const queued: Array<() => void> = [];
  const slot = () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => queued.push(resolve)));
  const release = () => {
    const next = queued.shift();
    if (next) next();
    else free++;
  };
  const batches = new Map<string, { started: Promise<Array<{ runId: string } | { error: string }>>; left: number }>();
  const batchOf = (side: number, index: number) => {
    const first = index - (index % size);
    const key = `${side}:${first}`;
    let batch = batches.get(key);
    if (!batch) {
      const inputs = cases.slice(first, first + size).map((c) => c.inputs);
      batch = { started: slot().then(() => port.startBatch(workflows[side], inputs, createdBy)), left: inputs.length };
      batches.set(key, batch);
    }
    return { batch, at: index - first };
  };
  return async (side: number, index: number, judge: (start: () => Promise<string>) => Promise<CaseOutcome>): Promise<CaseOutcome> => {
    const { batch, at } = batchOf(side, index);
    try {
      return await judge(async () => {
        const answer = (await batch.started)[at];
        if ("error" in answer) throw new Error(answer.error);
        return answer.runId;
      });
    } finally {
      if (--batch.left === 0) release();
    }
  };
}

/** What running one case on one side gives: its result, and the version that side ran when it did not name one. */
export type CaseOutcome = EvalCaseResult & { version?: number };

/**
 * The loop of an eval run, whatever its cases are (a skill's, an agent's): every case on every side of `run`,
 * `concurrency` at a time, each by `runOne` (which never throws), then the run completed and stored.
 */
export async function executeCases(options: {
  run: EvalRun;
  caseCount: number;
  runOne: (side: number, index: number) => Promise<CaseOutcome>;
  concurrency: number;
  report: EvalRunReport;
  log: Logger;
}): Promise<void> {
  const { run, caseCount, report } = options;
  const sides = run.sides.length;
  const jobs: Array<{ side: number; index: number }> = [];
  for (let index = 0; index < caseCount; index++) for (let side = 0; side < sides; side++) jobs.push({ side, index });
  const slots: Array<Array<EvalCaseResult | undefined>> = run.sides.map(() => Array.from({ length: caseCount }, () => undefined));
  let next = 0;
  let lastStored = Date.now();
  let storeGap = STORE_EVERY_MS;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const { version, ...result } = await options.runOne(job.side, job.index);
      slots[job.side][job.index] = result;
      const side = run.sides[job.side];
      if (side.side.version === undefined && version !== undefined) side.side.version = version;
      if (result.pass) side.passed++;
      else side.failed++;
      side.passRate = caseCount === 0 ? 0 : side.passed / caseCount;
      side.results = slots[job.side].filter((r): r is EvalCaseResult => r !== undefined);
      run.done++;
      report.progress(run, job.side, result);
      if (Date.now() - lastStored >= storeGap) {
        const began = Date.now();
        await report.store(run).catch((error: unknown) => options.log.warn("an eval run's progress could not be stored", { evalRunId: run.id, error: messageOf(error) }));
        lastStored = Date.now();
        storeGap = Math.max(STORE_EVERY_MS, (lastStored - began) / STORE_SHARE);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, jobs.length)) }, worker));
  run.status = "completed";
  run.finishedAt = Date.now();
  await report.store(run);
}
