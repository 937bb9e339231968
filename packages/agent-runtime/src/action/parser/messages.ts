import type { ManifestEntry } from "../manifest/entry.ts";
import { exampleJsonValue, exampleParamXml, exampleParams, renderActionExample, xmlContent, type ExampleParam } from "../manifest/example.ts";
import { safeJson } from "../json.ts";
import type { Manifest } from "../manifest/manifest.ts";
import { displayType, paramDescription } from "../manifest/render-prompt.ts";
import type { ParamIssue } from "./params.ts";
import { describePosition, type Position } from "./positions.ts";

/**
 * The Observation texts of parse errors: what is wrong (tag, parameter, line and column), what is
 * valid (tools, parameters with types, the nearest name) and a corrected example.
 */
const MAX_LISTED_TOOLS = 40;
const MAX_REUSED_VALUE = 80;

export function at(p: Position | undefined): string {
  return p ? ` (${describePosition(p)})` : "";
}

/** The parameter lines of a tool, as in the prompt. */
export function parameterList(entry: ManifestEntry): string {
  if (entry.params.length === 0) return `\`${entry.name}\` takes no parameters.`;
  const lines = entry.params.map((p) => `    *   \`<${p.name}>\` (${displayType(p)}, ${p.required ? "required" : "optional"}): ${paramDescription(p)}`);
  return `Parameters of \`${entry.name}\`:\n${lines.join("\n")}`;
}

export function knownTools(manifest: Manifest): string {
  if (manifest.entries.length === 0) return "No tools or skills are available to you: answer in plain text, without <ACTION>.";
  const list = (entries: readonly ManifestEntry[]) => {
    const shown = entries.slice(0, MAX_LISTED_TOOLS).map((e) => `\`${e.name}\``);
    return entries.length > MAX_LISTED_TOOLS ? `${shown.join(", ")} and ${entries.length - MAX_LISTED_TOOLS} more` : shown.join(", ") || "none";
  };
  return `Available tools: ${list(manifest.tools)}. Available skills: ${list(manifest.skills)}.`;
}

/** How examples are written: an `<ACTION>` block, or native tool-call arguments (JSON). */
export type ExampleStyle = "xml" | "json";

/**
 * An example call of `entry` reusing what the model wrote where it was right: its short values,
 * under the corrected name for a misspelt parameter; placeholders for the rest.
 */
export function correctedExample(entry: ManifestEntry, raw: Record<string, unknown> = {}, issues: readonly ParamIssue[] = [], style: ExampleStyle = "xml"): string {
  if (style === "json") return correctedArguments(entry, raw, issues);
  const bad = new Set(issues.filter((i) => i.suggestion === undefined && i.param !== undefined).map((i) => i.param!));
  const renamed = new Map<string, string>();
  for (const i of issues) if (i.suggestion && i.param) renamed.set(i.suggestion, i.param);
  const params: ExampleParam[] = [];
  for (const p of entry.params) {
    const source = Object.hasOwn(raw, p.name) ? p.name : renamed.get(p.name);
    if (!p.required && source === undefined) continue;
    const given = source !== undefined && !bad.has(p.name) ? raw[source] : undefined;
    const reuse = typeof given === "string" && given.length <= MAX_REUSED_VALUE && given.trim() !== "";
    params.push({ name: p.name, xml: reuse ? xmlContent(given) : exampleParamXml(p) });
  }
  if (params.length === 0 && entry.params.length > 0 && Object.keys(raw).length === 0) params.push(...exampleParams(entry));
  return renderActionExample(entry.name, params, "block");
}

function correctedArguments(entry: ManifestEntry, raw: Record<string, unknown>, issues: readonly ParamIssue[]): string {
  const bad = new Set(issues.filter((i) => i.suggestion === undefined && i.param !== undefined).map((i) => i.param!));
  const renamed = new Map<string, string>();
  for (const i of issues) if (i.suggestion && i.param) renamed.set(i.suggestion, i.param);
  const args: Record<string, unknown> = {};
  for (const p of entry.params) {
    const source = Object.hasOwn(raw, p.name) ? p.name : renamed.get(p.name);
    if (!p.required && source === undefined) continue;
    const given = source !== undefined && !bad.has(p.name) ? raw[source] : undefined;
    const short = given !== undefined && safeJson(given).length <= MAX_REUSED_VALUE;
    args[p.name] = short ? given : exampleJsonValue(p);
  }
  return `${entry.name}(${safeJson(args)})`;
}

export function invalidParamsMessage(
  entry: ManifestEntry,
  issues: readonly ParamIssue[],
  raw: Record<string, unknown>,
  positionOf: (param: string) => Position | undefined,
  style: ExampleStyle = "xml",
): string {
  const lines = issues.map((i) => {
    const where = i.param ? at(positionOf(i.param)) : "";
    return `- ${i.path}${where}: ${i.message}`;
  });
  return [`Invalid parameters for \`${entry.name}\`:`, ...lines, parameterList(entry), "Nothing was executed. Write it like this:", correctedExample(entry, raw, issues, style)].join("\n");
}

export function unknownToolMessage(
  tag: string,
  position: Position | undefined,
  manifest: Manifest,
  suggestions: readonly ManifestEntry[],
  raw: Record<string, unknown>,
  style: ExampleStyle = "xml",
): string {
  const near = suggestions[0];
  const head = `Unknown tool ${style === "xml" ? `<${tag}>` : `\`${tag}\``}${at(position)}.${
    near
      ? ` Did you mean \`${near.name}\`${
          suggestions.length > 1
            ? ` (or ${suggestions
                .slice(1)
                .map((s) => `\`${s.name}\``)
                .join(", ")})`
            : ""
        }?`
      : ""
  }`;
  const rule = style === "xml" ? "The tag inside <ACTION> must be the exact name of one tool or skill." : "The function name must be the exact name of one tool or skill.";
  const parts = [head, knownTools(manifest), `${rule} Nothing was executed.`];
  if (near) parts.push(parameterList(near), "Write it like this:", correctedExample(near, raw, [], style));
  else if (style === "xml" && manifest.entries[0]) parts.push("A call looks like this:", renderActionExample(manifest.entries[0].name, exampleParams(manifest.entries[0]), "block"));
  return parts.join("\n");
}

export function malformedMessage(detail: string, position: Position | undefined, entry: ManifestEntry | undefined): string {
  const parts = [
    `Malformed XML in your <ACTION> block${at(position)}: ${detail}`,
    "Every tag needs a matching closing tag, and a value containing <, > or & (code, diffs, JSON) must be wrapped in <![CDATA[ ... ]]>. Nothing was executed.",
  ];
  if (entry) parts.push("Write it like this:", cdataExample(entry));
  return parts.join("\n");
}

/** An example whose text values sit in CDATA: what a value with markup in it needs. */
function cdataExample(entry: ManifestEntry): string {
  const params = exampleParams(entry).map((p) => {
    const type = entry.params.find((q) => q.name === p.name)?.type;
    return type === "string" && !p.xml.startsWith("<") ? { name: p.name, xml: `<![CDATA[${p.xml}]]>` } : p;
  });
  return renderActionExample(entry.name, params, "block");
}

export function truncatedMessage(what: "action" | "cdata" | "comment", position: Position | undefined, entry: ManifestEntry | undefined): string {
  const opened =
    what === "cdata"
      ? `The <![CDATA[ section opened${at(position)} is never closed with ]]>`
      : what === "comment"
        ? `The comment <!-- opened${at(position)} is never closed with -->`
        : `Your <ACTION> block opened${at(position)} is never closed with </ACTION>`;
  const parts = [`${opened}: the output looks cut off. Nothing was executed. Write the complete block again (shorter if it was long), ending with </ACTION>.`];
  if (entry) parts.push("Write it like this:", what === "cdata" ? cdataExample(entry) : correctedExample(entry));
  return parts.join("\n");
}

export function multipleToolsMessage(tags: readonly string[], position: Position | undefined): string {
  return [
    `Your <ACTION> block${at(position)} contains ${tags.length} tool tags (${tags.map((t) => `<${t}>`).join(", ")}); only one tool or skill per <ACTION> is allowed. Nothing was executed.`,
    `Call <${tags[0]}> alone first, wait for its Observation, then make the next call in your next reply.`,
  ].join("\n");
}

export function emptyActionMessage(position: Position | undefined, manifest: Manifest): string {
  const first = manifest.entries[0];
  const parts = [
    `Your <ACTION> block${at(position)} is empty. Put exactly one tool or skill tag inside it; if you did not mean to call a tool, answer without an <ACTION> block.`,
    knownTools(manifest),
  ];
  if (first) parts.push("For example:", renderActionExample(first.name, exampleParams(first), "block"));
  return parts.join("\n");
}

export function textInsteadOfToolMessage(text: string, position: Position | undefined, manifest: Manifest): string {
  const json = /^\s*[[{]/.test(text);
  const first = manifest.entries[0];
  const parts = [
    `Your <ACTION> block${at(position)} contains ${json ? "JSON" : "plain text"} but no tool tag. Inside <ACTION>, write the tool name as a tag and each parameter as a child tag${json ? " (JSON is only accepted as the value of one parameter, inside CDATA)" : ""}. Nothing was executed.`,
    knownTools(manifest),
  ];
  if (first) parts.push("For example:", renderActionExample(first.name, exampleParams(first), "block"));
  return parts.join("\n");
}
