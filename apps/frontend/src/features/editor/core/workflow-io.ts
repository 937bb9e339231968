import { WorkflowSchema, type Workflow, messageOf } from "@weft/types";

export type ImportResult = { ok: true; workflow: Workflow } | { ok: false; reason: string };

/** Reads a workflow JSON file, saying exactly where it is wrong when it is not a workflow. */
export function parseWorkflowJson(text: string, fileName = "the file"): ImportResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `${fileName} is not valid JSON (${messageOf(error)})` };
  }
  // An export wrapped as `{ workflow: {...} }` (the API's response shape) is accepted too.
  if (typeof value === "object" && value !== null && "workflow" in value && !("nodes" in value)) value = (value as { workflow: unknown }).workflow;
  const parsed = WorkflowSchema.safeParse(value);
  if (parsed.success) return { ok: true, workflow: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? issue.path.join(".") : "the top level";
  return { ok: false, reason: `${fileName} is not a Weft workflow: at ${where}, ${issue.message}` };
}

/** The document as written to an export file (readable, stable key order of the schema). */
export function workflowToJson(workflow: Workflow): string {
  return JSON.stringify(workflow, null, 2) + "\n";
}

export function exportFileName(workflow: Pick<Workflow, "id">): string {
  return `${workflow.id}.weft.json`;
}
