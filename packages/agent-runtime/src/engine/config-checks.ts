import type { z } from "zod";
import { InterfaceNodeConfigSchema, WORKFLOW_INPUT_TYPE, valueMatchesPortType, type ConfigField, type NodeSpec, type ValidationIssue, type WorkflowNode } from "@weft/types";

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the text ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  return `${typeof value} ${typeof value === "object" ? "" : String(value)}`.trim();
}

/** Why `value` does not fit `field`, or null. */
function configMismatch(field: ConfigField, value: unknown): string | null {
  switch (field.kind) {
    case "text":
    case "multiline":
    case "code":
      return typeof value === "string" ? null : "a text";
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "a number";
      break;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return "an integer";
      break;
    case "boolean":
      return typeof value === "boolean" ? null : "true or false";
    case "select":
      return !field.options || field.options.includes(value as string | number) ? null : `one of ${field.options.map((o) => JSON.stringify(o)).join(", ")}`;
    case "json":
      return null;
    default: {
      const never: never = field.kind;
      return never;
    }
  }
  const n = value as number;
  if (field.min !== undefined && n < field.min) return `at least ${field.min}`;
  if (field.max !== undefined && n > field.max) return `at most ${field.max}`;
  return null;
}

/**
 * Checks a node's config against its spec's config fields and returns the config the node sees:
 * its own values over the fields' defaults.
 */
export function checkNodeConfig(node: WorkflowNode, spec: NodeSpec, isInterfaceNode: boolean, issues: ValidationIssue[]): Record<string, unknown> {
  const own = node.config ?? EMPTY;
  const fields = spec.config;
  if (fields === undefined || fields.length === 0) return own;
  let effective: Record<string, unknown> | undefined;
  for (const field of fields) {
    let value = own[field.id];
    if (value === undefined && field.default !== undefined) {
      effective ??= { ...own };
      effective[field.id] = value = field.default;
    }
    // Interface nodes' config is checked as a whole by checkInterfaceNode.
    if (isInterfaceNode) continue;
    if (value === undefined) {
      if (field.required) {
        issues.push({
          code: "INVALID_CONFIG",
          nodeId: node.id,
          message: `config "${field.id}" of ${spec.type} is required`,
          hint: `set config.${field.id}${field.description ? ` (${field.description})` : ""}`,
        });
      }
      continue;
    }
    const expected = configMismatch(field, value);
    if (expected) {
      issues.push({
        code: "INVALID_CONFIG",
        nodeId: node.id,
        message: `config "${field.id}" is ${describe(value)}, but ${spec.type} expects ${expected}`,
        hint: `set config.${field.id} to ${expected}`,
      });
    }
  }
  return effective ?? own;
}

export type InterfaceNodeConfig = z.infer<typeof InterfaceNodeConfigSchema>;

/** Checks the config of a `core:workflow-input` / `core:workflow-output` node; returns it when valid. */
export function checkInterfaceNode(node: WorkflowNode, issues: ValidationIssue[]): InterfaceNodeConfig | undefined {
  const parsed = InterfaceNodeConfigSchema.safeParse(node.config ?? {});
  const kind = node.type === WORKFLOW_INPUT_TYPE ? "input" : "output";
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path.join(".") || "config";
      issues.push({
        code: "INVALID_INTERFACE",
        nodeId: node.id,
        message: `interface ${kind} config "${field}": ${issue.message}`,
        hint:
          field === "name"
            ? `give the ${kind} a name (letters, digits and _, starting with a letter), e.g. config.name = "text"`
            : `fix config.${field} (portType is one of string, number, integer, boolean, json, array, messages, any)`,
      });
    }
    return undefined;
  }
  const { name, portType, default: fallback } = parsed.data;
  if (fallback !== undefined && !valueMatchesPortType(fallback, portType)) {
    issues.push({
      code: "INVALID_INTERFACE",
      nodeId: node.id,
      message: `the default of interface ${kind} "${name}" is ${describe(fallback)}, not a ${portType}`,
      hint: `make config.default a ${portType} or change config.portType`,
    });
  }
  return parsed.data;
}
