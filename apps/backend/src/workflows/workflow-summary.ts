import { isSkill, workflowInterface, WorkflowInterfaceSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { z } from "zod";
import { num } from "../storage/row-values.ts";

/**
 * The workflow list's summary kept in columns beside the document (both engines), written with every
 * workflow write, so listing reads a few columns instead of decoding every stored workflow.
 */
export function summaryColumns(workflow: Workflow) {
  return {
    description: workflow.description,
    /** JSON array of strings. */
    tags: JSON.stringify(workflow.tags),
    node_count: workflow.nodes.length,
    is_skill: isSkill(workflow),
    /** JSON of the WorkflowInterface. */
    interface: JSON.stringify(workflowInterface(workflow)),
  };
}

export type SummaryColumns = ReturnType<typeof summaryColumns>;

const TagsSchema = z.array(z.string());

/** A summary from its stored columns (written by `summaryColumns`, so checked only for shape). */
export function summaryFrom(row: { id: string; name: string; revision: number; updated_at: number | string }, columns: SummaryColumns): WorkflowSummary {
  return {
    id: row.id,
    name: row.name,
    description: columns.description,
    revision: row.revision,
    tags: TagsSchema.parse(JSON.parse(columns.tags)),
    nodeCount: columns.node_count,
    updatedAt: num(row.updated_at),
    isSkill: columns.is_skill,
    interface: WorkflowInterfaceSchema.parse(JSON.parse(columns.interface)),
  };
}
