/**
 * The few plain-English change requests the demo LLM understands in a Builder session. Parsing is
 * purely textual: which node, setting or node type the words name is resolved later, against the
 * workflow and the catalogue the Builder's tools return.
 */

/** Where a new node goes: after or before a named node, or in front of a workflow output. */
export type InsertAnchor = { side: "after" | "before"; node: string } | { side: "output" };

export type BuilderIntent =
  | { kind: "rename"; name: string }
  | { kind: "describe"; description: string }
  /** `node` undefined: the session's node. */
  | { kind: "set"; setting: string; node?: string; value: string }
  /** `what`: the words naming the node type; `values`: `name: value` settings for it. */
  | { kind: "add"; what: string; anchor?: InsertAnchor; values: Record<string, string> }
  | { kind: "remove"; node?: string };

/** What the demo tells the user it can do (also the help answer's list). */
export const BUILDER_INTENT_EXAMPLES: readonly string[] = [
  "rename the workflow to <name>",
  "set the description to <text>",
  "set <setting> of <node> to <value> (e.g. set template of fill to Hello {{0}})",
  "add a <node type> node after <node> (or before <node>; e.g. add a node that uppercases the output)",
  "remove node <node>",
];

const POLITE = /^(?:(?:please|kindly|now|ok(?:ay)?|can you|could you|would you|i want you to|i'd like you to)[\s,]+)+/i;
/** A node named by a quoted label or one word (ids have no spaces). */
const NODE_NAME = String.raw`(?:["'“‘]([^"'”’]+)["'”’]|([^\s,.;:!?"'“”‘’]+))`;
/** Words meaning "the session's own node". */
const THIS_NODE = new Set(["this", "it", "this node", "the node"]);

/** The intent of a user message, or null when it is none of the supported ones. */
export function parseBuilderIntent(message: string): BuilderIntent | null {
  const text = message.trim().replace(POLITE, "").trim();
  return parseRename(text) ?? parseDescribe(text) ?? parseAdd(text) ?? parseRemove(text) ?? parseSet(text);
}

/** A value as the user wrote it: the inside of quotes, else the text without a final full stop. */
export function valueOf(raw: string): string {
  const text = raw.trim();
  const quoted = /^(?:"([^"]*)"|'([^']*)'|“([^”]*)”|‘([^’]*)’)[.!]?$/s.exec(text);
  if (quoted) return quoted[1] ?? quoted[2] ?? quoted[3] ?? quoted[4] ?? "";
  return text.replace(/\.$/, "").trim();
}

function parseRename(text: string): BuilderIntent | null {
  const m =
    /^rename\s+(?:the\s+|this\s+)?(?:workflow\s+|it\s+)?(?:to|as)\s+(.+)$/is.exec(text) ??
    /^(?:set|change)\s+(?:the\s+)?(?:workflow'?s?\s+)?name(?:\s+of\s+(?:the\s+|this\s+)?workflow)?\s+to\s+(.+)$/is.exec(text) ??
    /^call\s+(?:the|this)\s+workflow\s+(.+)$/is.exec(text);
  const name = m ? valueOf(m[1]) : "";
  return name ? { kind: "rename", name } : null;
}

function parseDescribe(text: string): BuilderIntent | null {
  const m =
    /^(?:set|change|update)\s+(?:the\s+)?(?:workflow'?s?\s+)?description(?:\s+of\s+(?:the\s+|this\s+)?workflow)?\s+to\s+(.+)$/is.exec(text) ??
    /^describe\s+(?:the|this)\s+workflow\s+as\s+(.+)$/is.exec(text);
  const description = m ? valueOf(m[1]) : "";
  return description ? { kind: "describe", description } : null;
}

function parseSet(text: string): BuilderIntent | null {
  const owned = new RegExp(String.raw`^(?:set|change|make)\s+(?:the\s+)?${NODE_NAME}'s\s+([\w.-]+)\s+to\s+(.+)$`, "is").exec(text);
  if (owned) return setIntent(owned[3], owned[1] ?? owned[2], owned[4]);
  const of = new RegExp(String.raw`^(?:set|change|make)\s+(?:the\s+)?([\w.-]+)\s+(?:of|on|in|for)\s+(?:the\s+)?(?:node\s+)?${NODE_NAME}(?:\s+node)?\s+to\s+(.+)$`, "is").exec(text);
  if (of) return setIntent(of[1], of[2] ?? of[3], of[4]);
  const plain = /^(?:set|change|make)\s+(?:the\s+|its\s+)?([\w.-]+)\s+to\s+(.+)$/is.exec(text);
  return plain ? setIntent(plain[1], undefined, plain[2]) : null;
}

function setIntent(setting: string, node: string | undefined, raw: string): BuilderIntent {
  const named = node === undefined || THIS_NODE.has(node.toLowerCase()) ? undefined : node;
  return { kind: "set", setting, ...(named ? { node: named } : {}), value: valueOf(raw) };
}

function parseRemove(text: string): BuilderIntent | null {
  const m = new RegExp(String.raw`^(?:remove|delete|drop)\s+(?:the\s+)?(?:node\s+)?${NODE_NAME}(?:\s+node)?(?:\s+from\s+(?:the\s+|this\s+)?workflow)?[.!]?$`, "is").exec(text);
  if (!m) return null;
  const node = m[1] ?? m[2];
  return node.toLowerCase() === "node" || THIS_NODE.has(node.toLowerCase()) ? { kind: "remove" } : { kind: "remove", node };
}

function parseAdd(text: string): BuilderIntent | null {
  const m = /^(?:add|insert|put)\s+(?:a|an|one|another)?\s*(?:new\s+)?(.*?)\bnode\b(.*)$/is.exec(text);
  if (!m) return null;
  let rest = m[2];
  const values: Record<string, string> = {};
  const withClause = /\bwith\s+(.+)$/is.exec(rest);
  if (withClause) {
    Object.assign(values, parseAssignments(withClause[1]));
    rest = rest.slice(0, withClause.index);
  }
  let anchor: InsertAnchor | undefined;
  const placed = new RegExp(String.raw`\b(after|before)\s+(?:the\s+)?(?:node\s+)?${NODE_NAME}(?:\s+node)?`, "i").exec(rest);
  if (placed) {
    anchor = { side: placed[1].toLowerCase() as "after" | "before", node: placed[2] ?? placed[3] };
    rest = rest.slice(0, placed.index) + rest.slice(placed.index + placed[0].length);
  }
  const output = /\b(?:(?:to|on|at|in\s+front\s+of)\s+)?(?:the|its|this)\s+(?:workflow'?s?\s+)?(?:output|result)s?\b/i.exec(rest);
  if (output) {
    anchor ??= { side: "output" };
    rest = rest.slice(0, output.index) + rest.slice(output.index + output[0].length);
  }
  const what = `${m[1]} ${rest}`
    .replace(/[.,;:!?]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return { kind: "add", what, ...(anchor ? { anchor } : {}), values };
}

/** `pattern: \s+, replacement = "-" and flags: g` → `{ pattern: "\s+", replacement: "-", flags: "g" }`. */
export function parseAssignments(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([A-Za-z_][\w]*)\s*(?:=|:)\s*(?:"([^"]*)"|'([^']*)'|“([^”]*)”|([^\s,;]+))/g)) {
    out[m[1]] = m[2] ?? m[3] ?? m[4] ?? m[5].replace(/\.$/, "");
  }
  return out;
}
