import { FsSearchOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "./tool-call.ts";

export const fsSearch = defineNode(
  {
    type: "fs:search",
    title: "Search files",
    description:
      "Searches text files in a sandbox folder or file for a literal text or a regular expression, with optional context lines. Skips binary files, .git and node_modules; stops at the match, file and time limits and says so (truncated). Use it to find the lines to read with fs:read.",
    category: "files",
    inputs: [
      { id: "pattern", type: "string", required: true, label: "Pattern", description: "The text to find (a regular expression when Regex is on)." },
      { id: "path", type: "string", default: "@project/", label: "Where", description: "Folder or file to search, as a mount path (default @project/)." },
      { id: "regex", type: "boolean", default: false, label: "Regex", description: "Treat the pattern as a JavaScript regular expression instead of literal text." },
      { id: "caseSensitive", type: "boolean", default: true, label: "Match case", description: "Whether upper and lower case must match exactly." },
      { id: "contextLines", type: "integer", default: 0, min: 0, max: 10, label: "Context lines", description: "Lines to include before and after each match (0-10)." },
      { id: "include", type: "string", label: "Only files", description: "A glob over paths below the folder, e.g. **/*.md, to search only those files." },
      { id: "maxMatches", type: "integer", min: 1, label: "Max matches", description: "Stop after this many matches (the host's limit caps it)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "matches", type: "array", label: "Matches", description: "Each match: { path, line, column, text, before?, after? }." },
      { id: "truncated", type: "boolean", label: "Truncated", description: "Whether the search stopped at a limit before looking everywhere." },
    ],
  },
  async (inputs, ctx) => {
    const result = await callToolHost(ctx, "fs:search", "fs.search", {
      pattern: inputs.pattern,
      path: inputs.path,
      regex: inputs.regex,
      caseSensitive: inputs.caseSensitive,
      contextLines: inputs.contextLines,
      include: inputs.include || undefined,
      maxMatches: inputs.maxMatches,
    });
    return toolOutputs(result, FsSearchOkSchema, (ok) => ({ matches: ok.matches, truncated: ok.truncated ?? false }));
  },
);
