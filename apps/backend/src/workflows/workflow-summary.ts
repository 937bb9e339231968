import { isSkill, workflowInterface, WorkflowInterfaceSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { z } from "zod";

/**
 * The workflow list's summary kept in columns beside the document (both engines), written with every
 * workflow write, so listing reads a few columns instead of decoding every stored workflow.
 */
export type SummaryColumns = {
  description: string;
  /** JSON array of strings. */
  tags: string;
  node_count: number;
  is_skill: boolean;
  /** JSON of the WorkflowInterface. */
  interface: string;
};

export function summaryColumns(workflow: Workflow): SummaryColumns {
  return {
    description: workflow.description,
    tags: JSON.stringify(workflow.tags),
    node_count: workflow.nodes.length,
    is_skill: isSkill(workflow),
    interface: JSON.stringify(workflowInterface(workflow)),
  };
}

const TagsSchema = z.array(z.string());

/** A summary from its stored columns (written by `summaryColumns`, so checked only for shape). */
export function summaryFrom(row: { id: string; name: string; revision: number; updatedAt: number; columns: SummaryColumns }): WorkflowSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.columns.description,
    revision: row.revision,
    tags: TagsSchema.parse(JSON.parse(row.columns.tags)),
    nodeCount: row.columns.node_count,
    updatedAt: row.updatedAt,
    isSkill: row.columns.is_skill,
    interface: WorkflowInterfaceSchema.parse(JSON.parse(row.columns.interface)),
  };
}
