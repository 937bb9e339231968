import type { ConfigField, PortSpec } from "@weft/types";

export type WidgetKind = ConfigField["kind"];

/** How a literal input or a config field is edited inline. */
export interface WidgetSpec {
  kind: WidgetKind;
  options?: ReadonlyArray<string | number>;
  min?: number;
  max?: number;
  language?: string;
  /** The value used when none is set (the spec's default), shown as a placeholder. */
  fallback?: unknown;
}

export function widgetForPort(port: PortSpec): WidgetSpec {
  const base = { min: port.min, max: port.max, fallback: port.default };
  if (port.options && port.options.length > 0) return { ...base, kind: "select", options: port.options };
  switch (port.type) {
    case "string":
      return { ...base, kind: port.multiline ? "multiline" : "text" };
    case "number":
      return { ...base, kind: "number" };
    case "integer":
      return { ...base, kind: "integer" };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "json":
    case "array":
    case "messages":
    case "image":
    case "file":
    case "any":
      return { ...base, kind: "json" };
    default: {
      const never: never = port.type;
      return never;
    }
  }
}

export function widgetForConfig(field: ConfigField): WidgetSpec {
  return { kind: field.kind, options: field.options, min: field.min, max: field.max, language: field.language, fallback: field.default };
}

/** A short placeholder for an empty field: its default, else its type. An empty default says nothing ("default:"), so the type stands in. */
export function placeholderOf(spec: WidgetSpec, typeName: string): string {
  if (spec.fallback === undefined || spec.fallback === "") return typeName;
  // Blank text is shown quoted: unquoted it would look like no default at all.
  const shown = typeof spec.fallback === "string" && spec.fallback.trim() !== "" ? spec.fallback : JSON.stringify(spec.fallback);
  return `default: ${shown}`;
}

/** Widgets that fit on one line next to their label. */
export function isShortWidget(spec: WidgetSpec): boolean {
  return spec.kind === "text" || spec.kind === "number" || spec.kind === "integer" || spec.kind === "select" || spec.kind === "boolean";
}

/** Config fields left out of the node body (edited in the inspector) to keep nodes small. */
const INSPECTOR_ONLY: Record<string, readonly string[]> = {
  "core:workflow-input": ["description", "default"],
  "core:workflow-output": ["description"],
};

export function showConfigInline(nodeType: string, fieldId: string): boolean {
  return !INSPECTOR_ONLY[nodeType]?.includes(fieldId);
}
