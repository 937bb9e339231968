import { describe, expect, it } from "vitest";
import { parseAssignments, parseBuilderIntent, valueOf } from "./builder-intent.ts";
import { chooseNodeType, normalisePhrase } from "./builder-insert.ts";

describe("the demo Builder's intents", () => {
  it("renames the workflow, in several phrasings", () => {
    expect(parseBuilderIntent("Rename the workflow to Topic notes.")).toEqual({ kind: "rename", name: "Topic notes" });
    expect(parseBuilderIntent('please rename it to "v2.0"')).toEqual({ kind: "rename", name: "v2.0" });
    expect(parseBuilderIntent("Set the workflow's name to Notes")).toEqual({ kind: "rename", name: "Notes" });
    expect(parseBuilderIntent("change the name of the workflow to Notes")).toEqual({ kind: "rename", name: "Notes" });
    expect(parseBuilderIntent("Call this workflow Weaver")).toEqual({ kind: "rename", name: "Weaver" });
    expect(parseBuilderIntent("rename the workflow to ")).toBeNull();
  });

  it("sets the description, keeping quoted text exactly", () => {
    expect(parseBuilderIntent('Set the description to "Turns a topic into notes."')).toEqual({ kind: "describe", description: "Turns a topic into notes." });
    expect(parseBuilderIntent("update the workflow description to Makes notes of a topic.")).toEqual({ kind: "describe", description: "Makes notes of a topic" });
    expect(parseBuilderIntent("Describe this workflow as a note maker")).toEqual({ kind: "describe", description: "a note maker" });
  });

  it("sets a setting of a node named by id or quoted label, or of the session's node", () => {
    expect(parseBuilderIntent("Set template of fill to Hello {{0}}!")).toEqual({ kind: "set", setting: "template", node: "fill", value: "Hello {{0}}!" });
    expect(parseBuilderIntent("set the case of the tidy node to upper")).toEqual({ kind: "set", setting: "case", node: "tidy", value: "upper" });
    expect(parseBuilderIntent("Change the flags on node 'Highlight terms' to g")).toEqual({ kind: "set", setting: "flags", node: "Highlight terms", value: "g" });
    expect(parseBuilderIntent("set draft's onMissing to blank")).toEqual({ kind: "set", setting: "onMissing", node: "draft", value: "blank" });
    expect(parseBuilderIntent("set role to assistant")).toEqual({ kind: "set", setting: "role", value: "assistant" });
    expect(parseBuilderIntent("set the template of this node to 'to be {{0}}'")).toEqual({ kind: "set", setting: "template", value: "to be {{0}}" });
  });

  it("adds a node: the type's words, where it goes, and its settings", () => {
    expect(parseBuilderIntent("Add a node that uppercases the output")).toEqual({ kind: "add", what: "that uppercases", anchor: { side: "output" }, values: {} });
    expect(parseBuilderIntent("add a preview node after draft.")).toEqual({ kind: "add", what: "preview", anchor: { side: "after", node: "draft" }, values: {} });
    expect(parseBuilderIntent('insert a Regex replace node before the "Highlight terms" node with pattern: \\s+ and replacement: "-"')).toEqual({
      kind: "add",
      what: "Regex replace",
      anchor: { side: "before", node: "Highlight terms" },
      values: { pattern: "\\s+", replacement: "-" },
    });
    expect(parseBuilderIntent("add a delay node")).toEqual({ kind: "add", what: "delay", values: {} });
    expect(parseBuilderIntent("Add a new text transform node to the workflow's output with case=lower")).toEqual({
      kind: "add",
      what: "text transform",
      anchor: { side: "output" },
      values: { case: "lower" },
    });
  });

  it("removes a node by id or label, or the session's node", () => {
    expect(parseBuilderIntent("remove node squeeze")).toEqual({ kind: "remove", node: "squeeze" });
    expect(parseBuilderIntent("Delete the squeeze node from the workflow.")).toEqual({ kind: "remove", node: "squeeze" });
    expect(parseBuilderIntent("remove the 'Collapse spaces' node")).toEqual({ kind: "remove", node: "Collapse spaces" });
    expect(parseBuilderIntent("Remove this node")).toEqual({ kind: "remove" });
  });

  it("recognises nothing else", () => {
    for (const text of ["Make it faster", "What does this workflow do?", "Read the workflow notes", "", "remove all the nodes that are not needed", "rename node fill to x"]) {
      expect(parseBuilderIntent(text), text).toBeNull();
    }
  });

  it("reads values and name: value settings", () => {
    expect(valueOf(' "keep. this." ')).toBe("keep. this.");
    expect(valueOf("plain words.")).toBe("plain words");
    expect(parseAssignments('pattern: [a-z]+, flags = gi and replacement: "x y".')).toEqual({ pattern: "[a-z]+", flags: "gi", replacement: "x y" });
  });
});

describe("choosing the node type the words name", () => {
  const catalog = [
    { type: "core:const-text", title: "Text" },
    { type: "core:text-template", title: "Text template" },
    { type: "core:regex-match", title: "Regex match" },
    { type: "core:regex-replace", title: "Regex replace" },
    { type: "core:text-transform", title: "Trim / change case" },
    { type: "core:preview", title: "Preview" },
  ];
  it("by id, title or most shared words; none when nothing is shared", () => {
    expect(chooseNodeType("core:regex-match", catalog)?.type).toBe("core:regex-match");
    expect(chooseNodeType("regex replace", catalog)?.type).toBe("core:regex-replace");
    expect(chooseNodeType("Preview", catalog)?.type).toBe("core:preview");
    expect(chooseNodeType("text transform", catalog)?.type).toBe("core:text-transform");
    expect(chooseNodeType("that uppercases", catalog)?.type).toBe("core:text-transform");
    expect(chooseNodeType("that lowercases", catalog)?.type).toBe("core:text-transform");
    expect(chooseNodeType("magic", catalog)).toBeUndefined();
    expect(normalisePhrase("uppercases and Lower-cased")).toBe("upper case and lower case");
  });
});
