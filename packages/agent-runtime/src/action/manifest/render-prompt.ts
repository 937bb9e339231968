import type { ManifestEntry, ManifestParam } from "./entry.ts";
import { exampleParams, renderActionExample } from "./example.ts";
import { Manifest } from "./manifest.ts";
import { safeJson } from "../json.ts";

/**
 * The manifest as the system prompt shows it for the `<ACTION>` XML protocol (seed 004 §4.2).
 * The shape is machine-readable (the demo LLM reads it), one line each:
 *   `*   \`<name>\`: description`
 *   `    *   \`<param>\` (type, required|optional): description`
 *   `    Example: \`<ACTION>…</ACTION>\``
 * followed by the protocol rules. Tag mentions sit in inline code, so a model echoing the prompt
 * never triggers an action.
 */
export function renderManifestPrompt(tools: Manifest | readonly ManifestEntry[]): string {
  const manifest = Manifest.from(tools);
  // An agent renders the same manifest at every step: the text is kept with the manifest (it never changes).
  let text = rendered.get(manifest);
  if (text === undefined) rendered.set(manifest, (text = render(manifest)));
  return text;
}

const rendered = new WeakMap<Manifest, string>();

function render(manifest: Manifest): string {
  const out: string[] = ["You have access to the following tools and skills:", ""];
  out.push("**Tools (direct function calls):**", "", ...section(manifest.tools), "");
  out.push("**Skills (workflow executions):**", "", ...section(manifest.skills), "");
  out.push(...PROTOCOL_RULES);
  return out.join("\n");
}

export const PROTOCOL_RULES: readonly string[] = [
  "**How to call a tool or skill:**",
  "",
  "*   First explain your reasoning in plain text, then write one `<ACTION>` block: the tool or skill name as the only tag inside it, each parameter as a child tag of that tag.",
  "*   One tool or skill per `<ACTION>` block, and one `<ACTION>` block per reply: only the first block is executed. Stop writing after `</ACTION>`; the result comes back to you as an Observation.",
  "*   Wrap a value that contains `<`, `>` or `&`, or spans several lines (code, diffs, JSON), in `<![CDATA[` ... `]]>`. If the value itself contains `]]>`, write that part as `]]]]><![CDATA[>`.",
  "*   Lists: one `<item>` tag per element. Objects: one child tag per field, or JSON inside CDATA.",
  "*   If no tool or skill is needed, answer in plain text without any `<ACTION>` block.",
  "*   An `<ACTION>` inside a code block, inline code or a `<think>` block is only an example and is never executed.",
];

function section(entries: readonly ManifestEntry[]): string[] {
  if (entries.length === 0) return ["*   (none)"];
  const lines: string[] = [];
  for (const e of entries) {
    lines.push(`*   \`<${e.name}>\`: ${oneLine(e.description) || "(no description)"}`);
    for (const p of e.params) lines.push(`    *   \`<${p.name}>\` (${displayType(p)}, ${p.required ? "required" : "optional"}): ${paramDescription(p)}`);
    lines.push(`    Example: \`${renderActionExample(e.name, exampleParams(e), "inline")}\``);
  }
  return lines;
}

/** The type word of the parameter line: a port type, `array` for a multi port. */
export function displayType(p: ManifestParam): string {
  return p.multi ? "array" : p.type;
}

const TYPE_HINTS: Partial<Record<ManifestParam["type"], string>> = {
  json: "Any JSON value; write objects and arrays as JSON inside CDATA, or as child tags.",
  messages: 'A JSON array of chat messages ({"role", "content"}) inside CDATA.',
  array: "A list: one <item> tag per element.",
};

export function paramDescription(p: ManifestParam): string {
  const parts = [oneLine(p.description)];
  if (p.multi) parts.push(`A list of ${p.type} values: one <item> tag per value.`);
  else if (TYPE_HINTS[p.type]) parts.push(TYPE_HINTS[p.type]!);
  if (p.options && p.options.length > 0) parts.push(`One of: ${p.options.map((o) => `"${o}"`).join(", ")}.`);
  if (p.default !== undefined) parts.push(`Default: ${safeJson(p.default)}.`);
  return parts.filter(Boolean).join(" ") || "(no description)";
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
