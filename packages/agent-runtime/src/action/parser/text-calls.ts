import type { ManifestEntry } from "../manifest/entry.ts";
import { Manifest } from "../manifest/manifest.ts";
import { safeJson } from "../json.ts";
import { locateAction } from "./locate.ts";
import { correctedExample } from "./messages.ts";
import { parseAction } from "./parse-action.ts";
import type { ErrorResult, QuotedAction, TextResult } from "./result.ts";

/**
 * Calls a model wrote in a form its protocol does not run: an `<ACTION>` quoted in a code block,
 * inline code, reasoning or a comment; a call written as JSON text; an `<ACTION>` block from an
 * agent that calls tools natively. Nothing of these runs, and a reply that holds nothing else would
 * otherwise end the task as an "answer": each gets an Observation saying what happened and how to
 * resend it.
 */

const OR_ANSWER = "if you meant to answer, answer in plain text.";

const QUOTED: Record<QuotedAction["where"], { inside: string; resend: string }> = {
  "code-block": { inside: "inside a Markdown code block", resend: "send the <ACTION> block again without the ``` fence around it" },
  "inline-code": { inside: "inside inline code (backticks)", resend: "send it again without the backticks" },
  reasoning: { inside: "inside your reasoning (a <think> block)", resend: "write the <ACTION> block after your reasoning, in the reply itself" },
  comment: { inside: "inside an HTML comment", resend: "send it again without the <!-- --> around it" },
};

/** The refusal of an `<ACTION>` reply whose only actions were quoted; undefined when none was. */
export function quotedActionError(result: TextResult): ErrorResult | undefined {
  const first = meantToRun(result.quoted, result.responseText)[0];
  if (!first) return undefined;
  const { inside, resend } = QUOTED[first.where];
  const line = first.where === "reasoning" ? "" : ` (line ${first.line})`;
  return {
    kind: "error",
    code: "QUOTED_ACTION",
    message: `Your <ACTION> was ${inside}${line}, so it was not run. To run it, ${resend}; ${OR_ANSWER}`,
    responseText: result.responseText,
    trailingText: "",
  };
}

/** A reply of an `<ACTION>` agent that writes its call as JSON: the refusal, with the call as `<ACTION>`. */
export function jsonCallError(text: string, tools: Manifest | readonly ManifestEntry[]): ErrorResult | undefined {
  const manifest = Manifest.from(tools);
  const call = findJsonCall(text, manifest);
  if (!call) return undefined;
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(call.args)) shown[k] = v !== null && typeof v === "object" ? v : String(v);
  return {
    kind: "error",
    code: "CALL_AS_TEXT",
    message: `You wrote the call to \`${call.entry.name}\` as JSON, so it was not run: tools are called with an <ACTION> block. To run it, write it like this:\n${correctedExample(call.entry, shown)}\nOtherwise, ${OR_ANSWER}`,
    responseText: text.trim(),
    trailingText: "",
    toolId: call.entry.id,
  };
}

/**
 * A reply of a native (`openai-tools`) agent without tool calls whose text holds a call (an
 * `<ACTION>` block, quoted or not, or JSON): the refusal pointing at the function call to make.
 */
export function callAsTextError(text: string, tools: Manifest | readonly ManifestEntry[]): ErrorResult | undefined {
  const manifest = Manifest.from(tools);
  const loc = locateAction(text);
  const wroteAction = loc.located.kind !== "none" || meantToRun(loc.quoted, loc.responseText).length > 0;
  const json = wroteAction ? undefined : findJsonCall(text, manifest);
  if (!wroteAction && !json) return undefined;
  const parsed = wroteAction ? parseAction(quotedRemoved(text, loc.quoted.length > 0), manifest) : undefined;
  const call = parsed?.kind === "call" ? { entry: manifest.getById(parsed.toolId)!, args: parsed.params } : json;
  const what = wroteAction ? "an <ACTION> block as text" : `the call to \`${json!.entry.name}\` as JSON text`;
  const how = call
    ? `Call the function \`${call.entry.name}\` with the arguments ${safeJson(call.args)} instead`
    : `Call one of the functions of this request (${manifest.entries.map((e) => `\`${e.name}\``).join(", ") || "none are offered"}) instead`;
  return {
    kind: "error",
    code: "CALL_AS_TEXT",
    message: `You wrote ${what}, so nothing was run: you call tools through function calls (tool_calls), not through text. ${how}; ${OR_ANSWER.replace("plain text.", "plain text without <ACTION>.")}`,
    responseText: text.trim(),
    trailingText: "",
    ...(call ? { toolId: call.entry.id } : {}),
  };
}

/** Quoted actions that may have been meant to run: an action in reasoning followed by an answer was only considered. */
function meantToRun(quoted: readonly QuotedAction[], responseText: string): QuotedAction[] {
  return responseText.trim() === "" ? [...quoted] : quoted.filter((q) => q.where !== "reasoning");
}

/** The text with Markdown fences and backticks removed, so a quoted `<ACTION>` parses as one. */
function quotedRemoved(text: string, quoted: boolean): string {
  return quoted ? text.replace(/^ {0,3}(`{3,}|~{3,}).*$/gm, "").replace(/`/g, "") : text;
}

const NAME_KEYS = ["name", "tool", "tool_name", "toolName", "action", "function"] as const;
const ARGUMENT_KEYS = ["arguments", "parameters", "args", "input", "params"] as const;

/** The first JSON object in the text (a fenced block, or the text itself) that names a tool of the manifest. */
function findJsonCall(text: string, manifest: Manifest): { entry: ManifestEntry; args: Record<string, unknown> } | undefined {
  const candidates = [...text.matchAll(/^ {0,3}```[\w-]*[ \t]*\n([\s\S]*?)\n {0,3}```/gm)].map((m) => m[1]!);
  const open = text.indexOf("{");
  const close = text.lastIndexOf("}");
  if (open !== -1 && close > open) candidates.push(text.slice(open, close + 1));
  for (const candidate of candidates) {
    const value = readJson(candidate.trim());
    const call = value === undefined ? undefined : callOf(value, manifest);
    if (call) return call;
  }
  return undefined;
}

function callOf(value: unknown, manifest: Manifest): { entry: ManifestEntry; args: Record<string, unknown> } | undefined {
  if (!isRecord(value)) return undefined;
  const fn = isRecord(value.function) ? value.function : undefined;
  const named = fn ?? value;
  for (const key of NAME_KEYS) {
    const name = named[key];
    if (typeof name !== "string") continue;
    const resolved = manifest.resolve(name);
    if (!resolved.found) continue;
    const given = ARGUMENT_KEYS.map((k) => named[k]).find((v) => v !== undefined);
    const args = typeof given === "string" ? readJson(given) : given;
    if (isRecord(args)) return { entry: resolved.entry, args };
    const rest = Object.fromEntries(Object.entries(named).filter(([k]) => k !== key));
    return { entry: resolved.entry, args: rest };
  }
  const keys = Object.keys(value);
  if (keys.length === 1 && isRecord(value[keys[0]!])) {
    const resolved = manifest.resolve(keys[0]!);
    if (resolved.found) return { entry: resolved.entry, args: value[keys[0]!] as Record<string, unknown> };
  }
  return undefined;
}

function readJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
