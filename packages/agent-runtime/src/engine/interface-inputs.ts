import { engineError, INTERFACE_VALUE_PORT, valueMatchesPortType, type NodeError, type NodeValues } from "@weft/types";
import type { CompiledGraph } from "./compiled-graph.ts";

export type BoundInputs = { ok: true; overrides: Map<number, NodeValues> } | { ok: false; error: NodeError };

interface InputProblem {
  input: string;
  problem: "unknown" | "missing" | "wrong_type";
  message: string;
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
}

/**
 * Turns the interface inputs of a run into the literal `value` input of each `core:workflow-input`
 * node. Unknown names, missing required inputs and values of the wrong type are all refused, by name.
 */
export function bindInterfaceInputs(graph: CompiledGraph, inputs: Record<string, unknown>): BoundInputs {
  const declared = graph.interfaceInputs;
  const names = declared.map((b) => b.name);
  const problems: InputProblem[] = [];
  for (const name of Object.keys(inputs)) {
    if (names.includes(name)) continue;
    const known = names.length > 0 ? `its inputs are ${names.map((n) => `"${n}"`).join(", ")}` : "it declares no inputs";
    problems.push({ input: name, problem: "unknown", message: `workflow "${graph.workflow.id}" has no input "${name}" (${known})` });
  }
  const overrides = new Map<number, NodeValues>();
  for (const binding of declared) {
    const given = inputs[binding.name];
    const value = given === undefined ? binding.default : given;
    if (value === undefined) {
      if (binding.required) problems.push({ input: binding.name, problem: "missing", message: `missing required input "${binding.name}" (${binding.type})` });
      continue;
    }
    if (!valueMatchesPortType(value, binding.type)) {
      problems.push({ input: binding.name, problem: "wrong_type", message: `input "${binding.name}" must be a ${binding.type}, got ${kindOf(value)}` });
      continue;
    }
    overrides.set(binding.node, { ...graph.literals[binding.node], [INTERFACE_VALUE_PORT]: value });
  }
  if (problems.length > 0) {
    const error: NodeError = engineError("INVALID_INPUT", problems.map((p) => p.message).join("; "), { problems });
    return { ok: false, error };
  }
  return { ok: true, overrides };
}
