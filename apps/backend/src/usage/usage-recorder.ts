import type { LlmCallUsage, Logger } from "@weft/types";
import type { RunFactsLookup } from "./run-facts.ts";
import type { UsageRepository } from "./usage-repository.ts";
import type { UsageRecord } from "./usage-schemas.ts";

/**
 * Stores each LLM call's usage (`ProfileLlmService`'s `onUsage`) with what its run adds: the workflow and the user
 * who started it. A failed write is logged, not thrown: the call was answered (and paid for), and its node's run goes on.
 */
export class UsageRecorder {
  private readonly listeners: Array<(record: UsageRecord) => void> = [];

  constructor(
    private readonly usage: UsageRepository,
    private readonly runs: Pick<RunFactsLookup, "of">,
    private readonly log: Logger,
  ) {}

  /** Called with every record stored (the metrics' counters). */
  onRecord(listener: (record: UsageRecord) => void): void {
    this.listeners.push(listener);
  }

  readonly record = async (call: LlmCallUsage): Promise<void> => {
    const { caller } = call;
    try {
      const run = await this.runs.of(caller.runId);
      const record: UsageRecord = {
        at: call.at,
        ...caller,
        ...(run ? { workflowId: run.workflowId } : {}),
        ...(caller.userId === undefined && run?.createdBy ? { userId: run.createdBy } : {}),
        profileId: call.profileId,
        model: call.model,
        usage: call.usage,
        ...(call.costUsd !== undefined ? { costUsd: call.costUsd } : {}),
      };
      await this.usage.record(record);
      for (const listener of this.listeners) listener(record);
    } catch (error) {
      this.log.warn("LLM usage not recorded", { runId: caller.runId, profileId: call.profileId, error: error instanceof Error ? error.message : String(error) });
    }
  };
}
