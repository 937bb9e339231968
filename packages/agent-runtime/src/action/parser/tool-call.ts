import type { ToolCall } from "@weft/types";
import type { ManifestEntry } from "../manifest/entry.ts";
import { Manifest } from "../manifest/manifest.ts";
import { invalidParamsMessage, unknownToolMessage } from "./messages.ts";
import { checkParams } from "./params.ts";
import type { CallResult, ErrorResult } from "./result.ts";
import { messageOf } from "@weft/types";

/**
 * The native (`openai-tools`) counterpart of parseAction: a tool call's name is resolved like an
 * `<ACTION>` tag and its JSON arguments are checked with the same schema walk, codes and messages
 * (examples written as JSON arguments). Never throws.
 */
export function parseToolCallArguments(toolCall: Pick<ToolCall, "function">, tools: Manifest | readonly ManifestEntry[]): CallResult | ErrorResult {
  const base = { responseText: "", trailingText: "" };
  try {
    const manifest = Manifest.from(tools);
    const name = String(toolCall.function?.name ?? "");
    const resolved = manifest.resolve(name);
    const args = readArguments(String(toolCall.function?.arguments ?? ""));
    if (!resolved.found) {
      const raw = args.ok ? args.value : {};
      return { ...base, kind: "error", code: "UNKNOWN_TOOL", message: unknownToolMessage(name, undefined, manifest, resolved.suggestions, raw, "json") };
    }
    const entry = resolved.entry;
    if (!args.ok)
      return {
        ...base,
        kind: "error",
        code: args.code,
        message: `${args.message} Nothing was executed. Call \`${entry.name}\` again with its complete arguments as one JSON object.`,
        toolId: entry.id,
      };
    const notes: string[] = resolved.repair ? [resolved.repair.replace(/<([^>]+)>/g, "`$1`")] : [];
    const checked = checkParams(args.value, entry, "json", notes);
    if (checked.issues.length > 0) {
      return { ...base, kind: "error", code: "INVALID_PARAMS", message: invalidParamsMessage(entry, checked.issues, checked.raw, () => undefined, "json"), toolId: entry.id };
    }
    return { ...base, kind: "call", toolId: entry.id, toolKind: entry.kind, toolName: entry.name, params: checked.params, notes };
  } catch (err) {
    const reason = messageOf(err);
    return { ...base, kind: "error", code: "INVALID_PARAMS", message: `The tool call could not be read (${reason}). Nothing was executed.` };
  }
}

type Arguments = { ok: true; value: Record<string, unknown> } | { ok: false; code: "TRUNCATED" | "INVALID_PARAMS"; message: string };

function readArguments(text: string): Arguments {
  // Some providers send "" for a call without arguments.
  if (text.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = messageOf(err);
    if (/end of (JSON )?input|EOF|Unterminated/i.test(reason)) {
      return { ok: false, code: "TRUNCATED", message: `The arguments end before the JSON is complete (${reason}): the output looks cut off.` };
    }
    return { ok: false, code: "INVALID_PARAMS", message: `The arguments are not valid JSON (${reason}).` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, code: "INVALID_PARAMS", message: `The arguments must be a JSON object of parameters, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
