import type { ManifestEntry } from "../manifest/entry.ts";
import { nearestNames } from "../suggest.ts";
import { coerce, setOwn, type CoerceContext, type Issue, type JsonSchema } from "./coerce.ts";
import { decodeEntities, elementValue, groupChildren, isWhitespace, textValue, type RawValue } from "./values.ts";
import type { XmlElement } from "./xml-tree.ts";

/** A problem with one top-level parameter (or with the call as a whole when `param` is absent). */
export interface ParamIssue extends Issue {
  param?: string;
  /** For an unknown parameter: the valid name it most likely meant. */
  suggestion?: string;
}

export interface ParamsCheck {
  params: Record<string, unknown>;
  issues: ParamIssue[];
  /** The raw parameters under their schema names where only the letter case differed. */
  raw: Record<string, unknown>;
}

/**
 * The raw parameters of a tool element: child tags (a repeated tag becomes a list), attributes
 * (accepted as a noted repair: `<read_file path="a.ts"/>`), and bare text inside the tool tag when
 * the tool has exactly one parameter (`<read_file>a.ts</read_file>`, noted).
 */
export function readToolParams(tool: XmlElement, entry: ManifestEntry, notes: string[]): { raw: Record<string, RawValue>; issues: ParamIssue[] } {
  const raw: Record<string, RawValue> = {};
  const issues: ParamIssue[] = [];
  const groups = groupChildren(tool);
  for (const [name, list] of groups) {
    const values = list.map((el, i) => elementValue(el, notes, list.length > 1 ? `<${name}>[${i}]` : `<${name}>`));
    setOwn(raw, name, values.length === 1 ? values[0]! : values);
  }
  if (tool.attrs.length > 0) {
    for (const [name, value] of tool.attrs) {
      if (Object.hasOwn(raw, name)) issues.push({ param: name, path: `<${name}>`, message: "is given both as an attribute and as a child tag; give it once, as a child tag" });
      else setOwn(raw, name, decodeEntities(value));
    }
    notes.push(`Parameters written as attributes of <${tool.name}> (${tool.attrs.map(([k]) => k).join(", ")}) were accepted; write each parameter as a child tag.`);
  }
  const strayText = tool.children.some((n) => n.kind !== "element" && !isWhitespace(n.text));
  if (strayText && groups.size === 0 && tool.attrs.length === 0 && entry.params.length === 1) {
    const only = entry.params[0]!.name;
    setOwn(raw, only, textValue(tool.children, notes, `<${tool.name}>`));
    notes.push(`The text inside <${tool.name}> was read as its only parameter <${only}>; write it as <${only}>…</${only}>.`);
  } else if (strayText) {
    issues.push({
      path: `<${tool.name}>`,
      message: `contains text outside any parameter tag; put every value inside its parameter tag, e.g. <${entry.params[0]?.name ?? "param"}>…</${entry.params[0]?.name ?? "param"}>`,
    });
  }
  return { raw, issues };
}

/** Converts and validates parameters against the entry's schema; unknown names get the nearest valid one. */
export function checkParams(given: Record<string, unknown>, entry: ManifestEntry, origin: CoerceContext["origin"], notes: string[]): ParamsCheck {
  const schema = entry.inputSchema as JsonSchema;
  const props = (typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === "string") : [];
  const known = Object.keys(props);
  const raw = repairCase(given, known, origin, notes);
  const issues: ParamIssue[] = [];
  const params: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const key of Object.keys(raw)) {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    if (!prop) {
      if (schema.additionalProperties === false) unknown.push(key);
      else setOwn(params, key, raw[key]);
      continue;
    }
    const ctx: CoerceContext = { origin, issues: [], notes };
    const jsonText = entry.params.find((p) => p.name === key)?.type === "json";
    setOwn(params, key, coerce(raw[key], prop, `<${key}>`, ctx, jsonText));
    for (const i of ctx.issues) issues.push({ ...i, param: key });
  }
  const missing = required.filter((r) => !Object.hasOwn(raw, r));
  const explained = new Set<string>();
  for (const key of unknown) {
    // A typo of a missing required parameter is the likeliest reading; then any unused name.
    const near =
      nearestNames(key, missing, 1)[0] ??
      nearestNames(
        key,
        known.filter((k) => !Object.hasOwn(raw, k)),
        1,
      )[0] ??
      nearestNames(key, known, 1)[0];
    if (near) explained.add(near);
    issues.push({
      param: key,
      path: `<${key}>`,
      message: `unknown parameter${near ? `; did you mean <${near}>?` : ""}`,
      ...(near ? { suggestion: near } : {}),
    });
  }
  for (const m of missing) if (!explained.has(m)) issues.push({ param: m, path: `<${m}>`, message: "required parameter is missing" });
  return { params, issues, raw };
}

/**
 * Names that match a parameter but for letter case (`<A>`, `<Op>`) are read as that parameter, with
 * a note, as tool names are; a name that fits several, or one already given, stays as written.
 */
function repairCase(raw: Record<string, unknown>, known: readonly string[], origin: CoerceContext["origin"], notes: string[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    const lower = key.toLowerCase();
    const matches = known.filter((k) => k.toLowerCase() === lower);
    if (matches.length !== 1 || Object.hasOwn(raw, matches[0]!)) continue;
    const name = matches[0]!;
    out ??= { ...raw };
    delete out[key];
    setOwn(out, name, raw[key]);
    notes.push(
      origin === "xml"
        ? `The parameter <${key}> was matched to <${name}> ignoring letter case; write <${name}> exactly.`
        : `The argument \`${key}\` was matched to \`${name}\` ignoring letter case; write \`${name}\` exactly.`,
    );
  }
  return out ?? raw;
}
