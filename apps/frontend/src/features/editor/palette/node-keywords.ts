/**
 * Words people search with that a node's title and type do not contain ("uppercase" for Trim /
 * change case, "fetch" for HTTP request). Matched like the title, a little below it.
 */
export const NODE_KEYWORDS: Readonly<Record<string, string>> = {
  "core:text-transform": "uppercase lowercase upper lower case trim capitalize",
  "core:regex-replace": "replace substitute find sed",
  "core:regex-match": "find extract search pattern",
  "core:text-template": "format interpolate concat string",
  "core:text-split": "tokenize explode lines",
  "core:text-join": "concat implode",
  "core:json-parse": "parse decode",
  "core:json-stringify": "stringify serialize encode",
  "core:if-else": "branch condition if",
  "core:math": "add subtract multiply divide plus minus sum arithmetic",
  "core:delay": "wait sleep",
  "http:request": "http fetch get post url api web rest",
  "a2a:call": "a2a agent remote delegate agent2agent call",
  "llm:chat": "ai gpt model openai prompt completion",
  "code:javascript": "script js function code",
};
