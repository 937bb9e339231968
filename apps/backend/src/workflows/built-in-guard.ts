import { ApiError } from "../api/errors.ts";

/** Which stored workflows are built in (the system runs them), read when a write is asked for. */
export type BuiltInIds = () => Promise<ReadonlySet<string>>;

/**
 * A built-in workflow (every agent without its own deliberation workflow runs it) is neither
 * overwritten nor deleted, whoever asks and by whichever route (the API, the Builder's apply): it is
 * duplicated and the copy changed.
 */
export async function refuseBuiltIn(builtIns: BuiltInIds, id: string, doing: "change" | "delete"): Promise<void> {
  if (!(await builtIns()).has(id)) return;
  throw new ApiError(
    "BUILT_IN",
    `Workflow "${id}" is built in (agents run it), so it cannot be ${doing === "change" ? "changed" : "deleted"}. Duplicate it with POST /api/workflows/${id}/duplicate and change the copy; an agent uses the copy once its deliberationWorkflowId names it.`,
    { id },
  );
}

/** The Builder's apply writes workflows too: a change set touching a built-in workflow is refused whole. */
export async function refuseBuiltInWrites(builtIns: BuiltInIds, writes: readonly { type: string; key: string; value: unknown }[]): Promise<void> {
  for (const write of writes) if (write.type === "workflow") await refuseBuiltIn(builtIns, write.key, write.value === null ? "delete" : "change");
}
