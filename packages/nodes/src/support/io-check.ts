import { NodeFailure, valueMatchesPortType, type ConfigField, type NodeSpec, type NodeValues, type PortSpec } from "@weft/types";
import { describeValue } from "./describe-value.ts";

/** Ports whose type admits null as a real value; on every other port null means "not given". */
const NULLABLE = new Set(["any", "json"]);

function portName(spec: NodeSpec, port: PortSpec): string {
  return `input "${port.id}" of ${spec.type}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function checkRange(value: unknown, min: number | undefined, max: number | undefined): string | null {
  if (typeof value !== "number") return null;
  if (min !== undefined && value < min) return `at least ${min}`;
  if (max !== undefined && value > max) return `at most ${max}`;
  return null;
}

/**
 * The node's inputs as its code may rely on them: defaults applied, required ones present, every value
 * of its port's type, a multi input always an array. Anything else is a NodeFailure `INVALID_INPUT`
 * saying which port, what was expected and what came. Inputs not declared by the spec pass unchanged.
 */
export function checkInputs(spec: NodeSpec, inputs: NodeValues): NodeValues {
  if (spec.flags.dynamicPorts) return inputs;
  const out: NodeValues = { ...inputs };
  for (const port of spec.inputs) {
    let value = out[port.id];
    if (port.multi) {
      if (value === undefined || value === null) value = port.default ?? [];
      const items = Array.isArray(value) ? value : [value];
      if (port.required && items.length === 0) {
        throw new NodeFailure("INVALID_INPUT", `${portName(spec, port)} needs at least one value: connect one or more edges to it.`, { port: port.id });
      }
      items.forEach((item, index) => {
        if (item === undefined || item === null || valueMatchesPortType(item, port.type)) return;
        throw new NodeFailure("INVALID_INPUT", `${portName(spec, port)} expects ${article(port.type)} in every position, but item ${index} is ${describeValue(item)}.`, {
          port: port.id,
          index,
          expected: port.type,
        });
      });
      out[port.id] = items;
      continue;
    }
    if (value === null && !NULLABLE.has(port.type)) value = undefined;
    if (value === undefined) value = port.default;
    if (value === undefined) {
      if (port.required) {
        throw new NodeFailure("INVALID_INPUT", `${portName(spec, port)} is required: connect an edge to it or set a value.`, { port: port.id });
      }
      delete out[port.id];
      continue;
    }
    if (!valueMatchesPortType(value, port.type)) {
      throw new NodeFailure("INVALID_INPUT", `${portName(spec, port)} expects ${article(port.type)}, got ${describeValue(value)}.`, {
        port: port.id,
        expected: port.type,
      });
    }
    const range = checkRange(value, port.min, port.max);
    if (range) throw new NodeFailure("INVALID_INPUT", `${portName(spec, port)} must be ${range}, got ${String(value)}.`, { port: port.id });
    out[port.id] = value;
  }
  return out;
}

function configKindMismatch(field: ConfigField, value: unknown): string | null {
  switch (field.kind) {
    case "text":
    case "multiline":
    case "code":
      return typeof value === "string" ? null : "a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "a number";
    case "integer":
      return Number.isInteger(value) ? null : "an integer";
    case "boolean":
      return typeof value === "boolean" ? null : "true or false";
    case "select":
      return field.options?.includes(value as string | number) ? null : `one of ${field.options?.map((o) => JSON.stringify(o)).join(", ")}`;
    case "json":
      return null;
    default: {
      const never: never = field.kind;
      return never;
    }
  }
}

/**
 * The node's config with defaults applied and every field checked against its kind; a bad field is a
 * NodeFailure `INVALID_CONFIG` naming the setting and what it must be. Undeclared keys pass unchanged.
 * A config that needs no default is returned as is (no copy: nodes run with it on every call).
 */
export function checkConfig(spec: NodeSpec, config: Record<string, unknown>): Record<string, unknown> {
  let out = config;
  for (const field of spec.config) {
    const given = out[field.id];
    let value = given;
    if (value === undefined || (value === null && field.kind !== "json")) value = field.default;
    if (value === undefined) {
      if (field.required) {
        throw new NodeFailure("INVALID_CONFIG", `Setting "${field.id}" of ${spec.type} is required: set it in the node's settings.`, { field: field.id });
      }
      if (Object.hasOwn(out, field.id)) {
        if (out === config) out = { ...config };
        delete out[field.id];
      }
      continue;
    }
    const expected = configKindMismatch(field, value);
    if (expected) {
      throw new NodeFailure("INVALID_CONFIG", `Setting "${field.id}" of ${spec.type} must be ${expected}, got ${describeValue(value)}.`, {
        field: field.id,
      });
    }
    const range = checkRange(value, field.min, field.max);
    if (range) throw new NodeFailure("INVALID_CONFIG", `Setting "${field.id}" of ${spec.type} must be ${range}, got ${String(value)}.`, { field: field.id });
    if (value !== given) {
      if (out === config) out = { ...config };
      out[field.id] = value;
    }
  }
  return out;
}
