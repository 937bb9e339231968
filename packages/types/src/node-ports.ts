import { InterfaceNodeConfigSchema, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE } from "./interface.ts";
import { ERROR_OUTPUT_ID, type NodeSpec } from "./node-spec.ts";
import type { PortSpec, PortType } from "./ports.ts";
import type { WorkflowNode } from "./workflow.ts";
import { schemaPropertyPorts } from "./schema-ports.ts";

/**
 * The ports of one workflow node, the same for the engine (graph checks) and the editor (handles):
 * one definition, so a connection the editor offers is one the engine accepts.
 */

/** The port an interface node's value flows through (`core:workflow-input` / `-output`). */
export const INTERFACE_VALUE_PORT = "value";

/** The virtual output every node with `policy.onError = "route"` has. */
export const ERROR_PORT: PortSpec = { id: ERROR_OUTPUT_ID, type: "json", label: "error", required: false, multi: false };

export interface DeclaredPorts {
  inputs: readonly PortSpec[];
  outputs: readonly PortSpec[];
}

const NO_PORTS: readonly PortSpec[] = [];

export const routesErrors = (node: Pick<WorkflowNode, "policy">): boolean => node.policy?.onError === "route";

/** A node's own port list, with schema defaults filled in (a workflow not parsed by zod may lack them). */
function normalise(ports: readonly PortSpec[] | undefined): readonly PortSpec[] {
  return ports ? ports.map((p) => ({ ...p, required: p.required ?? false, multi: p.multi ?? false })) : NO_PORTS;
}

function retypeValue(ports: readonly PortSpec[], type: PortType, required?: boolean): PortSpec[] {
  return ports.map((p) => (p.id === INTERFACE_VALUE_PORT ? { ...p, type, required: required ?? p.required } : p));
}

/**
 * The ports `node` has, without the virtual `$error` output: its spec's (the spec's own arrays, so
 * callers may cache by spec), or the node's own `ports` for a spec with `dynamicPorts` or an
 * unknown type; a spec with `outputsFromSchema` adds an output per property of that schema. Interface nodes type their value port by their `portType` config; a
 * workflow-input's value input is filled by the engine, so it is never required.
 */
export function declaredPorts(node: WorkflowNode, spec: NodeSpec | undefined): DeclaredPorts {
  if (!spec || spec.flags?.dynamicPorts) return { inputs: normalise(node.ports?.inputs), outputs: normalise(node.ports?.outputs) };
  const inputs = spec.inputs ?? NO_PORTS;
  const outputs = spec.outputs ?? NO_PORTS;
  const schemaField = spec.flags?.outputsFromSchema;
  if (schemaField) return { inputs, outputs: [...outputs, ...schemaPropertyPorts(node.config?.[schemaField], { taken: new Set(outputs.map((p) => p.id)) })] };
  if (node.type !== WORKFLOW_INPUT_TYPE && node.type !== WORKFLOW_OUTPUT_TYPE) return { inputs, outputs };
  const declared = InterfaceNodeConfigSchema.shape.portType.safeParse(node.config?.portType);
  const type: PortType = declared.success ? declared.data : "any";
  return { inputs: retypeValue(inputs, type, node.type === WORKFLOW_INPUT_TYPE ? false : undefined), outputs: retypeValue(outputs, type) };
}
