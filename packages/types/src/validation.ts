import { z } from "zod";

export const VALIDATION_CODES = [
  "SCHEMA",
  "UNKNOWN_NODE_TYPE",
  "DUPLICATE_ID",
  "DANGLING_EDGE",
  "UNKNOWN_PORT",
  "PORT_TYPE_MISMATCH",
  "DUPLICATE_INPUT",
  "CYCLE",
  "MISSING_REQUIRED_INPUT",
  "INVALID_CONFIG",
  "INVALID_INTERFACE",
  "SKILL_NOT_FOUND",
] as const;
export const ValidationCodeSchema = z.enum(VALIDATION_CODES);
export type ValidationCode = z.infer<typeof ValidationCodeSchema>;

/** One problem found in a workflow: what is wrong, where, and how to fix it. */
export const ValidationIssueSchema = z.object({
  code: ValidationCodeSchema,
  message: z.string(),
  hint: z.string(),
  nodeId: z.string().optional(),
  edgeId: z.string().optional(),
  /** JSON path inside the workflow document, when the problem is a schema one. */
  path: z.array(z.union([z.string(), z.number()])).optional(),
  /** For CYCLE: the nodes in the cycle, in order. */
  nodeIds: z.array(z.string()).optional(),
});
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

export function formatIssue(issue: ValidationIssue): string {
  const where = issue.nodeId ? `node "${issue.nodeId}"` : issue.edgeId ? `edge "${issue.edgeId}"` : issue.path?.length ? issue.path.join(".") : "workflow";
  return `[${issue.code}] ${where}: ${issue.message}\n    fix: ${issue.hint}`;
}
