import { nearestNames } from "../suggest.ts";
import { messageOf } from "@weft/types";

/**
 * Converts parameter values to what a tool's JSON Schema asks for, and validates them, in one walk.
 * Values only change type where the schema says so (XML text stays text unless the schema wants a
 * number, boolean, list or object). Covers the subset the manifest generates: type (or a list of
 * types), enum, minimum/maximum, items, properties, required, additionalProperties.
 */
export type JsonSchema = { [key: string]: unknown };

export interface Issue {
  /** `<args><file>[1]`: where the value is. */
  path: string;
  message: string;
}

export interface CoerceContext {
  /** xml: values are text and element trees; json: a native tool call's arguments. */
  origin: "xml" | "json";
  issues: Issue[];
  notes: string[];
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export function schemaTypes(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t) && t.every((x): x is string => typeof x === "string") && t.length > 0) return t;
  return undefined;
}

/** A short, quoted preview of a value for messages. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describe(value: unknown, origin: CoerceContext["origin"]): string {
  if (Array.isArray(value)) return origin === "xml" ? "a list of <item> tags" : "an array";
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    return origin === "xml" ? `nested tags ${keys.map((k) => `<${k}>`).join(", ") || "(none)"}` : "an object";
  }
  if (value === null) return "null";
  return `${typeof value} ${preview(value)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function looksLikeJson(text: string, open: string): boolean {
  return text.trimStart().startsWith(open);
}

function parseJsonText(text: string, path: string, ctx: CoerceContext): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const reason = messageOf(err);
    ctx.issues.push({ path, message: `looks like JSON but is not valid JSON (${reason}); fix the JSON, inside <![CDATA[ ... ]]>` });
    return { ok: false };
  }
}

/** Converts and checks `value` against `schema`; problems go to ctx.issues. `jsonText`: a JSON text may stand for the value. */
export function coerce(value: unknown, schema: JsonSchema, path: string, ctx: CoerceContext, jsonText = false): unknown {
  const types = schemaTypes(schema);
  let out: unknown;
  if (!types) {
    out = value;
    if (jsonText && typeof value === "string" && (looksLikeJson(value, "{") || looksLikeJson(value, "["))) {
      const parsed = parseJsonText(value, path, ctx);
      if (!parsed.ok) return value;
      out = parsed.value;
    }
  } else if (types.length === 1) {
    out = coerceAs(value, types[0]!, schema, path, ctx);
  } else {
    out = coerceUnion(value, types, schema, path, ctx);
  }
  return checkConstraints(out, schema, path, ctx);
}

function coerceUnion(value: unknown, types: string[], schema: JsonSchema, path: string, ctx: CoerceContext): unknown {
  for (const type of types) {
    const trial: CoerceContext = { origin: ctx.origin, issues: [], notes: [] };
    const out = coerceAs(value, type, schema, path, trial);
    if (trial.issues.length === 0) {
      ctx.notes.push(...trial.notes);
      return out;
    }
  }
  ctx.issues.push({ path, message: `expected ${types.join(" or ")}, got ${describe(value, ctx.origin)}` });
  return value;
}

function coerceAs(value: unknown, type: string, schema: JsonSchema, path: string, ctx: CoerceContext): unknown {
  switch (type) {
    case "string":
      if (typeof value === "string") return value;
      if (ctx.origin === "json" && (typeof value === "number" || typeof value === "boolean")) {
        ctx.notes.push(`${path} was given as ${typeof value} ${String(value)} and converted to the string "${String(value)}".`);
        return String(value);
      }
      ctx.issues.push({
        path,
        message: `expected text, got ${describe(value, ctx.origin)}${ctx.origin === "xml" && isPlainObject(value) ? "; if the value contains markup, wrap it in <![CDATA[ ... ]]>" : ""}`,
      });
      return value;
    case "number":
    case "integer":
      return coerceNumber(value, type, path, ctx);
    case "boolean":
      if (typeof value === "boolean") return value;
      if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) {
        if (ctx.origin === "json") ctx.notes.push(`${path} was given as the string ${preview(value)} and converted to a boolean.`);
        return value.trim().toLowerCase() === "true";
      }
      ctx.issues.push({ path, message: `expected true or false, got ${describe(value, ctx.origin)}` });
      return value;
    case "null":
      if (value === null) return null;
      if (typeof value === "string" && (value === "" || value.trim() === "null")) return null;
      ctx.issues.push({ path, message: `expected null, got ${describe(value, ctx.origin)}` });
      return value;
    case "array":
      return coerceArray(value, schema, path, ctx);
    case "object":
      return coerceObject(value, schema, path, ctx);
    default:
      return value;
  }
}

function coerceNumber(value: unknown, type: "number" | "integer", path: string, ctx: CoerceContext): unknown {
  let n: number | undefined;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && NUMBER.test(value.trim())) {
    n = Number(value.trim());
    if (ctx.origin === "json") ctx.notes.push(`${path} was given as the string ${preview(value)} and converted to a number.`);
  }
  if (n === undefined || !Number.isFinite(n)) {
    ctx.issues.push({ path, message: `expected ${type === "integer" ? "an integer" : "a number"}, got ${value === "" ? "an empty value" : describe(value, ctx.origin)}` });
    return value;
  }
  if (type === "integer" && !Number.isInteger(n)) {
    ctx.issues.push({ path, message: `expected an integer, got ${n}` });
    return value;
  }
  return n;
}

function coerceArray(value: unknown, schema: JsonSchema, path: string, ctx: CoerceContext): unknown {
  let list: unknown[];
  let itemOrigin = ctx.origin;
  if (Array.isArray(value)) list = value;
  else if (typeof value === "string" && value.trim() === "") list = [];
  else if (typeof value === "string" && looksLikeJson(value, "[")) {
    const parsed = parseJsonText(value, path, ctx);
    if (!parsed.ok) return value;
    if (!Array.isArray(parsed.value)) {
      ctx.issues.push({ path, message: `expected a list, got JSON ${describe(parsed.value, "json")}` });
      return value;
    }
    list = parsed.value;
    itemOrigin = "json";
  } else if (ctx.origin === "xml" && isPlainObject(value) && Object.keys(value).length === 1) {
    // <files><file>a</file><file>b</file></files>: the repeated child tag is the list.
    const only = Object.values(value)[0];
    list = Array.isArray(only) ? only : [only];
  } else if (ctx.origin === "xml" && typeof value === "string") {
    ctx.notes.push(`${path} was read as a list of one item; write lists as <item>…</item> tags.`);
    list = [value];
  } else {
    ctx.issues.push({ path, message: `expected a list, got ${describe(value, ctx.origin)}` });
    return value;
  }
  const items = isPlainObject(schema.items) ? (schema.items as JsonSchema) : undefined;
  if (!items) return list;
  const inner: CoerceContext = { origin: itemOrigin, issues: ctx.issues, notes: ctx.notes };
  return list.map((item, i) => coerce(item, items, `${path}[${i}]`, inner));
}

function coerceObject(value: unknown, schema: JsonSchema, path: string, ctx: CoerceContext): unknown {
  let obj: Record<string, unknown>;
  let fieldOrigin = ctx.origin;
  if (isPlainObject(value)) obj = value;
  else if (typeof value === "string" && value.trim() === "") obj = {};
  else if (typeof value === "string" && looksLikeJson(value, "{")) {
    const parsed = parseJsonText(value, path, ctx);
    if (!parsed.ok) return value;
    if (!isPlainObject(parsed.value)) {
      ctx.issues.push({ path, message: `expected an object, got JSON ${describe(parsed.value, "json")}` });
      return value;
    }
    obj = parsed.value;
    fieldOrigin = "json";
  } else {
    ctx.issues.push({ path, message: `expected an object (child tags, or JSON inside CDATA), got ${describe(value, ctx.origin)}` });
    return value;
  }
  const inner: CoerceContext = { origin: fieldOrigin, issues: ctx.issues, notes: ctx.notes };
  return coerceFields(obj, schema, inner, (key) => `${path}<${key}>`);
}

/** The fields of an object against `properties`, `required` and `additionalProperties`. */
export function coerceFields(obj: Record<string, unknown>, schema: JsonSchema, ctx: CoerceContext, pathOf: (key: string) => string): Record<string, unknown> {
  const props = isPlainObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const known = Object.keys(props);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    if (prop) setOwn(out, key, coerce(obj[key], prop, pathOf(key), ctx));
    else if (schema.additionalProperties === false) {
      const near = nearestNames(key, known, 1);
      ctx.issues.push({ path: pathOf(key), message: `unknown field${near.length ? `; did you mean <${near[0]}>?` : ""} Valid fields: ${known.map((k) => `<${k}>`).join(", ") || "none"}` });
    } else if (isPlainObject(schema.additionalProperties)) setOwn(out, key, coerce(obj[key], schema.additionalProperties as JsonSchema, pathOf(key), ctx));
    else setOwn(out, key, obj[key]);
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const extra = Object.keys(obj).filter((k) => !Object.hasOwn(props, k));
  for (const r of required) {
    if (Object.hasOwn(obj, r)) continue;
    const typo = nearestNames(r, extra, 1)[0];
    ctx.issues.push({ path: pathOf(r), message: `is required but missing${typo ? ` (is <${typo}> a misspelling of it?)` : ""}` });
  }
  return out;
}

/** Assignment that cannot touch a prototype, even for a key such as `__proto__` from JSON.parse. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function checkConstraints(value: unknown, schema: JsonSchema, path: string, ctx: CoerceContext): unknown {
  let out = value;
  if (Array.isArray(schema.enum)) {
    const options = schema.enum as unknown[];
    const match = options.find((o) => o === value || (typeof o === "number" && typeof value === "string" && NUMBER.test(value.trim()) && Number(value.trim()) === o));
    if (match === undefined) {
      const near = typeof value === "string" ? nearestNames(value, options.map(String), 1) : [];
      ctx.issues.push({ path, message: `must be one of ${options.map((o) => preview(o)).join(", ")}; got ${preview(value)}${near.length ? `. Did you mean "${near[0]}"?` : ""}` });
      return value;
    }
    out = match;
  }
  if (typeof out === "number") {
    if (typeof schema.minimum === "number" && out < schema.minimum) ctx.issues.push({ path, message: `must be at least ${schema.minimum}, got ${out}` });
    if (typeof schema.maximum === "number" && out > schema.maximum) ctx.issues.push({ path, message: `must be at most ${schema.maximum}, got ${out}` });
  }
  return out;
}
