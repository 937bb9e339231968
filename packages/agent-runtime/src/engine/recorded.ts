import type { NodeValues } from "@weft/types";

/**
 * What a node did in an earlier run, handed to a new run in its place (a fork, `RunOptions.recorded`): the node is
 * not executed; it ends as it ended then — completed with the recorded inputs and outputs (a `cached` observation,
 * no call of the node, so no LLM or tool call and no side effect is repeated), or skipped for the given reason.
 */
export type RecordedNode = { status: "completed"; inputs: NodeValues; outputs: NodeValues } | { status: "skipped"; reason: string };
