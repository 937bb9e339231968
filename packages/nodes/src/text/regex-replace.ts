import { defineNode } from "../define-node.ts";
import { compileRegex } from "../support/regex.ts";

export const regexReplace = defineNode(
  {
    type: "core:regex-replace",
    title: "Regex replace",
    description: "Replaces matches of a JavaScript regular expression in a text. The replacement may use $1, $2 … for capture groups, $<name> for named groups and $& for the whole match.",
    category: "text",
    inputs: [
      { id: "text", type: "string", required: true, label: "Text", description: "The text to change." },
      { id: "pattern", type: "string", required: true, label: "Pattern", description: "A JavaScript regular expression, without slashes." },
      { id: "replacement", type: "string", default: "", label: "Replacement", description: "What each match becomes." },
      { id: "flags", type: "string", default: "g", label: "Flags", description: "Regex flags; g (the default) replaces every match, without it only the first." },
    ],
    outputs: [
      { id: "text", type: "string", label: "Text", description: "The text after replacement." },
      { id: "count", type: "integer", label: "Replacements", description: "How many matches were replaced." },
    ],
    flags: { idempotent: true },
  },
  (inputs) => {
    const source = inputs.text as string;
    const regex = compileRegex(inputs.pattern as string, inputs.flags as string);
    const text = source.replace(regex, inputs.replacement as string);
    // matchAll sees exactly the matches a global replace does; without g only the first is replaced.
    regex.lastIndex = 0;
    const count = regex.global ? [...source.matchAll(regex)].length : regex.exec(source) ? 1 : 0;
    return { text, count };
  },
);
