import { isFrozenWorkflow } from "@weft/agent-runtime";
import { valueMatchesPortType, workflowInterface, type Workflow, type WorkflowInterface } from "@weft/types";

export interface InputIssue {
  path: string[];
  message: string;
  code: "unknown_input" | "missing_input" | "wrong_type";
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
}

/**
 * Each checked workflow's declared inputs: a stored revision's runs share one frozen workflow (RunService's kept
 * check), whose interface was derived, with a zod check of each interface node, on every start (~2% of a hook
 * request's CPU).
 */
const declaredInputs = new WeakMap<Workflow, WorkflowInterface["inputs"]>();

function inputsOf(workflow: Workflow): WorkflowInterface["inputs"] {
  let declared = declaredInputs.get(workflow);
  if (declared === undefined) {
    declared = workflowInterface(workflow).inputs;
    // Only a frozen workflow is known not to change afterwards.
    if (isFrozenWorkflow(workflow)) declaredInputs.set(workflow, declared);
  }
  return declared;
}

/**
 * Checks run inputs against the workflow's interface before a run is created, so a wrong call is
 * a 400 naming the input instead of a failed run in the history.
 */
export function checkRunInputs(workflow: Workflow, inputs: Record<string, unknown>): InputIssue[] {
  const declared = inputsOf(workflow);
  const names = declared.map((p) => p.name);
  const issues: InputIssue[] = [];
  for (const name of Object.keys(inputs)) {
    if (names.includes(name)) continue;
    const known = names.length > 0 ? `its inputs are ${names.map((n) => `"${n}"`).join(", ")}` : "it declares no inputs";
    issues.push({ path: ["inputs", name], code: "unknown_input", message: `workflow "${workflow.id}" has no input "${name}" (${known})` });
  }
  for (const port of declared) {
    const value = inputs[port.name] ?? port.default;
    if (value === undefined) {
      if (port.required)
        issues.push({ path: ["inputs", port.name], code: "missing_input", message: `missing required input "${port.name}" (${port.type})${port.description ? `: ${port.description}` : ""}` });
      continue;
    }
    if (!valueMatchesPortType(value, port.type)) {
      issues.push({ path: ["inputs", port.name], code: "wrong_type", message: `input "${port.name}" must be a ${port.type}, got ${kindOf(value)}` });
    }
  }
  return issues;
}
