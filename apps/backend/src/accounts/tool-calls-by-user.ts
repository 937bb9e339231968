import type { ToolHostService } from "@weft/types";

/**
 * The tool host as runs see it, each call naming the user who started its run (the run's `createdBy`),
 * so the tool audit log says who a file write or a shell command was for. A call outside a stored run,
 * or in a run no user started (a scene's), goes on without a user. Agents bypass this wrapper (their
 * tool host is bound per conversation): an agent's loop names its user itself (AgentRunOptions.userId),
 * since its runs are stored by the journal's next flush, possibly after their first tool call.
 */
export function toolCallsByUser(host: ToolHostService, createdBy: (runId: string) => Promise<string | undefined>): ToolHostService {
  return {
    async call(tool, args, ctx = {}) {
      if (ctx.userId !== undefined || ctx.runId === undefined) return host.call(tool, args, ctx);
      const userId = await createdBy(ctx.runId);
      return host.call(tool, args, userId === undefined ? ctx : { ...ctx, userId });
    },
  };
}
