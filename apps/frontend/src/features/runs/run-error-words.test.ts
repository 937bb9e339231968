import { describe, expect, it } from "vitest";
import { WorkflowSchema, type WorkflowNode } from "@weft/types";
import { runErrorInWords, runErrorSentence } from "./run-error-words.ts";

const doc = WorkflowSchema.parse({
  id: "wf",
  name: "Wf",
  nodes: [
    { id: "json_parse_1", type: "core:json-parse", position: { x: 0, y: 0 } },
    { id: "reader", type: "core:json-parse", label: "Read the order", position: { x: 300, y: 0 } },
  ],
});
const titleOf = (n: WorkflowNode) => n.label || (n.type === "core:json-parse" ? "Parse JSON" : n.type);
// As json-parse.ts writes it: the quoted line and the caret under column 8, both indented by two spaces.
const invalid = 'Invalid JSON at line 3, column 8: unexpected text (found "bad").\n    "b": bad\n         ^';

describe("runErrorInWords", () => {
  it("names the failed node of a run's error by title, keeps the id as secondary text, and lays the caret out under its column", () => {
    const words = runErrorInWords(
      { code: "INVALID_JSON", message: `node "json_parse_1" failed: ${invalid} (and 1 more failed)`, details: { nodeId: "json_parse_1", failedNodeIds: ["json_parse_1", "reader"] } },
      doc,
      titleOf,
    );
    expect(words).toEqual({
      nodeId: "json_parse_1",
      title: "Parse JSON",
      text: 'Invalid JSON at line 3, column 8: unexpected text (found "bad").',
      context: '"b": bad\n     ^',
      more: 1,
      secondary: "json_parse_1 · INVALID_JSON",
    });
    const [quoted, caret] = words.context!.split("\n");
    expect(quoted![caret!.indexOf("^")]).toBe("b");
    expect(runErrorSentence(words)).toBe('“Parse JSON” failed: Invalid JSON at line 3, column 8: unexpected text (found "bad"). (and 1 more node failed)');
  });

  it("reads one node's own error, naming other nodes it quotes by their titles", () => {
    const words = runErrorInWords({ code: "UPSTREAM", message: 'waited for "reader", which failed' }, doc, titleOf, "json_parse_1");
    expect(words).toMatchObject({ nodeId: "json_parse_1", title: "Parse JSON", text: "waited for “Read the order”, which failed", more: 0 });
    expect(words.context).toBeUndefined();
  });

  it("keeps an error no node caused as it is, and an unknown node by its id", () => {
    expect(runErrorSentence(runErrorInWords({ code: "CANCELLED", message: "cancelled by the user" }, doc, titleOf))).toBe("cancelled by the user");
    const gone = runErrorInWords({ code: "X", message: 'node "old_1" failed: boom' }, doc, titleOf);
    expect(runErrorSentence(gone)).toBe("“old_1” failed: boom");
  });
});
