import { LRUCache } from "lru-cache";
import type { RunRepository } from "../events/run-repository.ts";

/** What an LLM call's usage and budgets need of its run: both never change once the run is stored. */
export interface RunFacts {
  workflowId: string;
  createdBy?: string;
}

/** Runs whose facts are kept: an agent's loop or a busy workflow asks for the same few runs call after call. */
const KEPT_RUNS = 1024;

/**
 * The workflow and creator of a call's run, read once per run instead of a whole run record (inputs and outputs
 * included) before and again after every LLM call. A run not stored yet is not remembered: it is asked again.
 */
export class RunFactsLookup {
  private readonly kept = new LRUCache<string, RunFacts>({ max: KEPT_RUNS });

  constructor(private readonly runs: Pick<RunRepository, "get">) {}

  /** A run whose record its executor has just read (a queue worker taking it): its calls need not read it again. */
  know(run: { id: string } & RunFacts): void {
    if (this.kept.has(run.id)) return;
    this.kept.set(run.id, { workflowId: run.workflowId, ...(run.createdBy !== undefined ? { createdBy: run.createdBy } : {}) });
  }

  async of(runId: string | undefined): Promise<RunFacts | undefined> {
    if (runId === undefined) return undefined;
    const known = this.kept.get(runId);
    if (known) return known;
    const run = await this.runs.get(runId);
    if (!run) return undefined;
    const facts: RunFacts = { workflowId: run.workflowId, ...(run.createdBy !== undefined ? { createdBy: run.createdBy } : {}) };
    this.kept.set(runId, facts);
    return facts;
  }
}
