import type { BuilderIssue } from "@weft/types";

/** One line per issue, for the model and for logs. */
export function formatBuilderIssue(issue: BuilderIssue): string {
  const where = [
    issue.objectType && issue.objectKey ? `${issue.objectType} "${issue.objectKey}"` : undefined,
    issue.nodeId ? `node "${issue.nodeId}"` : undefined,
    issue.edgeId ? `edge "${issue.edgeId}"` : undefined,
    issue.path ? `at ${issue.path}` : undefined,
  ].filter(Boolean);
  return `[${issue.code}] ${where.length ? where.join(", ") + ": " : ""}${issue.message} (fix: ${issue.hint})`;
}
