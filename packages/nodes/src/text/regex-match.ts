import { defineNode } from "../define-node.ts";
import { compileRegex } from "../support/regex.ts";

export const regexMatch = defineNode(
  {
    type: "core:regex-match",
    title: "Regex match",
    description: "Searches a text with a JavaScript regular expression: tells whether it matches, and gives the first match, its capture groups and every match.",
    category: "text",
    inputs: [
      { id: "text", type: "string", required: true, label: "Text", description: "The text to search." },
      { id: "pattern", type: "string", required: true, label: "Pattern", description: "A JavaScript regular expression, without slashes, e.g. (\\d+)-(\\d+)." },
      { id: "flags", type: "string", default: "", label: "Flags", description: "Regex flags such as i (ignore case), m (multiline), s (dot matches newlines)." },
    ],
    outputs: [
      { id: "matched", type: "boolean", label: "Matched", description: "Whether the pattern occurs in the text." },
      { id: "match", type: "string", label: "First match", description: "The first matching text (empty when none)." },
      { id: "captures", type: "array", label: "Captures", description: "The first match's numbered capture groups (null for a group that did not take part)." },
      { id: "groups", type: "json", label: "Named groups", description: "The first match's named groups, as an object." },
      { id: "all", type: "array", label: "All matches", description: "Every matching text, in order." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const text = inputs.text as string;
    const flags = inputs.flags as string;
    // `all` needs a global search; the first match must not depend on a leftover lastIndex.
    const global = compileRegex(inputs.pattern as string, flags.includes("g") ? flags : flags + "g");
    const all = [...text.matchAll(global)];
    const first = all[0];
    return {
      matched: first !== undefined,
      match: first?.[0] ?? "",
      captures: first ? first.slice(1).map((c) => c ?? null) : [],
      groups: first?.groups ? { ...first.groups } : {},
      all: all.map((m) => m[0]),
    };
  },
);
