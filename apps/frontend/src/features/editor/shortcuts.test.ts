// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { comboLabel, matchShortcut, SHORTCUTS } from "./shortcuts.ts";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
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
    for (const s of SHORTCUTS)
      for (const c of s.combos) {
        const label = comboLabel(c);
        expect(seen.has(label), label).toBe(false);
        seen.add(label);
      }
  });
});
