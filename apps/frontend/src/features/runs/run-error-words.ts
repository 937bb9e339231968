import type { NodeError, Workflow, WorkflowNode } from "@weft/types";

/**
 * A run-time error as the editor says it: the node by its title (its id only as secondary text), the
 * message's first line as the sentence, and the lines after it (a quoted line with a caret under a
 * column, as JSON.parse positions give) kept apart, to show as they are in a monospaced block.
 */
export interface RunErrorInWords {
  /** The node that failed, to jump to. */
  nodeId?: string;
  /** The node's title; absent for an error no node caused (a cancelled run). */
  title?: string;
  /** The sentence: the node's own message, first line, with node ids in quotes named by title. */
  text: string;
  /** The lines after the first, unchanged but for their common indent: each column stays under the one above. */
  context?: string;
  /** How many other nodes failed in the same run. */
  more: number;
  /** What an API or log reader looks for: the node id and the error code. */
  secondary: string;
}

/** The engine's run error wraps the first failed node's message (engine/run-outcome.ts). */
const RUN_WRAPPER = /^node "([^"]*)" failed: /;
const MORE_FAILED = / \(and (\d+) more failed\)$/;

/**
 * `error` is a run's error (the engine's wrapper: `node "<id>" failed: …`) or one node's own error
 * (`nodeId` says which); the stored error is read, never changed, so ids stay in what the API returns.
 */
export function runErrorInWords(error: NodeError, doc: Workflow | undefined, titleOf: (node: WorkflowNode) => string, nodeId?: string): RunErrorInWords {
  let message = error.message;
  let failedId = nodeId;
  let more = 0;
  const wrapped = RUN_WRAPPER.exec(message);
  if (wrapped) {
    failedId = typeof error.details?.nodeId === "string" ? error.details.nodeId : wrapped[1];
    message = message.slice(wrapped[0].length);
    const extra = MORE_FAILED.exec(message);
    if (extra) {
      more = Number(extra[1]);
      message = message.slice(0, extra.index);
    }
  }
  const byId = new Map((doc?.nodes ?? []).map((n) => [n.id, n]));
  const named = (id: string) => {
    const node = byId.get(id);
    return node ? titleOf(node) : id;
  };
  const [first = "", ...rest] = message.split("\n");
  // Other nodes a message names in quotes ("because x failed") are named by title too.
  const text = first.replace(/"([^"]+)"/g, (quoted, id: string) => (byId.has(id) ? `“${named(id)}”` : quoted));
  const context = dedent(rest);
  const secondary = [failedId, error.code].filter(Boolean).join(" · ");
  return {
    text,
    more,
    secondary,
    ...(failedId ? { nodeId: failedId, title: named(failedId) } : {}),
    ...(context ? { context } : {}),
  };
}

/** The sentence with the node first, for one line (a toast, a history row, the live region). */
export function runErrorSentence(words: RunErrorInWords): string {
  const more = words.more > 0 ? ` (and ${words.more} more node${words.more === 1 ? "" : "s"} failed)` : "";
  return `${words.title ? `“${words.title}” failed: ` : ""}${words.text}${more}`;
}

/** Removes the indent all lines share (the same amount from each, so a caret stays under its column). */
function dedent(lines: string[]): string | undefined {
  const kept = lines.map((l) => l.replace(/\s+$/, ""));
  while (kept.length && kept[kept.length - 1] === "") kept.pop();
  while (kept.length && kept[0] === "") kept.shift();
  if (kept.length === 0) return undefined;
  const indent = Math.min(...kept.filter((l) => l !== "").map((l) => /^ */.exec(l)![0].length));
  return kept.map((l) => l.slice(indent)).join("\n");
}
