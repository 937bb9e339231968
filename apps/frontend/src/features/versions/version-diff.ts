import { graphDiff, WorkflowSchema, type Workflow } from "@weft/types";
import { mergeGraph, type GraphDiffView } from "../builder/index.ts";

/**
 * What restoring `old` over `current` would change, drawn as the Builder draws a staged change: the old version's
 * graph with what it adds, removes, changes or only moves marked. Null when the old content is not a workflow any more.
 */
export function restoreDiffView(current: Workflow, old: unknown): GraphDiffView | null {
  const parsed = WorkflowSchema.safeParse(old);
  if (!parsed.success) return null;
  return mergeGraph(parsed.data, graphDiff(current, parsed.data));
}

/** The document as versions keep it: without the revision counter, so unchanged content compares equal. */
export function withoutRevision<T extends { revision?: number }>(document: T): Omit<T, "revision"> {
  const { revision: _revision, ...content } = document;
  return content;
}
