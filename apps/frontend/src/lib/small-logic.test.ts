// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { applyCommand } from "./commands.ts";
import { fuzzyFilter, fuzzyScore } from "./fuzzy.ts";
import { layoutCommand } from "./layout.ts";
import { comboLabel, matchShortcut, SHORTCUTS } from "./shortcuts.ts";
import { parseWorkflowJson, workflowToJson } from "./workflow-io.ts";
import { sampleWorkflow, testSpecs } from "./testing/catalog.ts";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });

describe("fuzzy search", () => {
  it("matches in order, prefers direct and word-start hits", () => {
    expect(fuzzyScore("tt", "Text template")).not.toBeNull();
    expect(fuzzyScore("xz", "Text template")).toBeNull();
    const found = fuzzyFilter(testSpecs, "llm", (s) => [s.title, s.type, s.category]);
    expect(found[0].type).toBe("core:llm");
    expect(fuzzyFilter(testSpecs, "txtmpl", (s) => [s.title])[0].type).toBe("core:text-template");
    expect(fuzzyFilter(testSpecs, "", (s) => [s.title])).toHaveLength(testSpecs.length);
  });
});

describe("shortcuts", () => {
  it("maps keys to actions, with and without modifiers", () => {
    expect(matchShortcut(key("s", { ctrlKey: true }))).toBe("save");
    expect(matchShortcut(key("Z", { metaKey: true, shiftKey: true }))).toBe("redo");
    expect(matchShortcut(key("z", { ctrlKey: true }))).toBe("undo");
    expect(matchShortcut(key("Enter", { ctrlKey: true }))).toBe("run");
    expect(matchShortcut(key("Enter", { ctrlKey: true, shiftKey: true }))).toBe("runFromSelected");
    expect(matchShortcut(key("?", { shiftKey: true }))).toBe("help");
    expect(matchShortcut(key("s"))).toBeNull();
    expect(matchShortcut(key("c", { ctrlKey: true }))).toBeNull(); // copy arrives as a clipboard event
    expect(comboLabel({ key: "Enter", mod: true, shift: true })).toBe("Ctrl+Shift+Enter");
  });

  it("no two shortcuts share a key combination", () => {
    const seen = new Set<string>();
    for (const s of SHORTCUTS) for (const c of s.combos) {
      const label = comboLabel(c);
      expect(seen.has(label), label).toBe(false);
      seen.add(label);
    }
  });
});

describe("auto-layout", () => {
  it("places every edge left to right and keeps the graph's top-left corner", () => {
    const doc = sampleWorkflow();
    const laid = applyCommand(doc, layoutCommand(doc, () => ({ width: 200, height: 100 }))).doc;
    const at = new Map(laid.nodes.map((n) => [n.id, n.position]));
    for (const e of laid.edges) expect(at.get(e.target)!.x).toBeGreaterThan(at.get(e.source)!.x + 200);
    expect(Math.min(...laid.nodes.map((n) => n.position.x))).toBe(0);
    expect(Math.min(...laid.nodes.map((n) => n.position.y))).toBe(0);
  });
});

describe("import and export", () => {
  it("round-trips a workflow and names the place a bad file is wrong", () => {
    const doc = sampleWorkflow();
    expect(parseWorkflowJson(workflowToJson(doc))).toEqual({ ok: true, workflow: doc });
    expect(parseWorkflowJson(JSON.stringify({ workflow: doc }))).toEqual({ ok: true, workflow: doc });
    const bad = parseWorkflowJson(JSON.stringify({ ...doc, nodes: [{ id: "x", type: "Not A Type" }] }), "bad.json");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/^bad.json is not a Weft workflow: at nodes.0.type, a node type is `namespace:name`/);
    const notJson = parseWorkflowJson("{", "x.json");
    expect(notJson.ok === false && notJson.reason.startsWith("x.json is not valid JSON")).toBe(true);
  });
});
