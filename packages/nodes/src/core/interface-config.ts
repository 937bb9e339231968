import { InterfaceNodeConfigSchema, NodeFailure, PORT_TYPES, type ConfigFieldInput, type PortType } from "@weft/types";
import { z } from "zod";

export type InterfaceNodeConfig = z.infer<typeof InterfaceNodeConfigSchema>;

/** Config fields shared by `core:workflow-input` and `core:workflow-output` (see InterfaceNodeConfigSchema). */
export function interfaceConfigFields(direction: "input" | "output"): ConfigFieldInput[] {
  const fields: ConfigFieldInput[] = [
    {
      id: "name",
      kind: "text",
      required: true,
      label: "Name",
      description: `The ${direction}'s name in the workflow interface: letters, digits and _, starting with a letter or _.`,
    },
    {
      id: "portType",
      kind: "select",
      options: [...PORT_TYPES],
      default: "any",
      label: "Port type",
      description: `The type of the ${direction}; values of another type are refused.`,
    },
    { id: "description", kind: "multiline", default: "", label: "Description", description: `What the ${direction} is for (shown to LLMs calling this workflow as a skill).` },
  ];
  if (direction === "input") {
    fields.splice(
      2,
      0,
      { id: "required", kind: "boolean", default: false, label: "Required", description: "A run without a value for this input fails before anything else runs." },
      { id: "default", kind: "json", label: "Default", description: "Used when the run gives no value." },
    );
  }
  return fields;
}

/** Configs read before: a workflow's config objects are not changed once compiled, and an agent's deliberation runs its interface nodes at every step. */
const readConfigs = new WeakMap<Record<string, unknown>, InterfaceNodeConfig>();

/** The node's config as the interface contract reads it; an invalid one names the bad field. */
export function readInterfaceConfig(nodeType: string, config: Record<string, unknown>): InterfaceNodeConfig {
  const known = readConfigs.get(config);
  if (known) return known;
  const parsed = InterfaceNodeConfigSchema.safeParse(config);
  if (parsed.success) {
    readConfigs.set(config, parsed.data);
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  throw new NodeFailure("INVALID_CONFIG", `Setting "${issue.path.join(".") || "config"}" of ${nodeType} is invalid: ${issue.message}.`, {
    issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
  });
}

/**
 * Converts text given for a typed interface input (from a command line or an `<ACTION>` parameter,
 * which are always text) to the declared type; other values are returned as they are.
 */
export function coerceText(value: unknown, type: PortType): unknown {
  if (typeof value !== "string") return value;
  switch (type) {
    case "number":
    case "integer": {
      const n = value.trim() === "" ? NaN : Number(value);
      return Number.isNaN(n) ? value : n;
    }
    case "boolean":
      return value === "true" ? true : value === "false" ? false : value;
    case "array":
    case "messages":
    case "image":
    case "file":
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    case "string":
    case "json":
    case "any":
      return value;
    default: {
      const never: never = type;
      return never;
    }
  }
}
