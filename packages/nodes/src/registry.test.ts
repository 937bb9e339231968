import { describe, expect, it } from "vitest";
import { defineNode } from "./define-node.ts";
import { DuplicateNodeTypeError, NodeRegistry, UnknownNodeTypeError } from "./registry.ts";
import { createBuiltinRegistry } from "./builtins.ts";

describe("NodeRegistry", () => {
  const registry = createBuiltinRegistry();

  it("names the nearest known types for an unknown one", () => {
    expect(() => registry.require("core:text-templat")).toThrow(UnknownNodeTypeError);
    try {
      registry.require("core:text-templat");
    } catch (e) {
      const error = e as UnknownNodeTypeError;
      expect(error.code).toBe("UNKNOWN_NODE_TYPE");
      expect(error.suggestions[0]).toBe("core:text-template");
      expect(error.message).toContain('Did you mean "core:text-template"');
    }
  });

  it("matches on the name alone when the namespace is wrong", () => {
    expect(registry.suggest("text:json-parse")[0]).toBe("core:json-parse");
    expect(registry.suggest("core:regex-replce")).toContain("core:regex-replace");
  });

  it("names only node types that exist in the help of every node (descriptions of the node, its ports and settings)", () => {
    const named = registry.list().flatMap((spec) => {
      const texts = [spec.description, ...spec.inputs.map((p) => p.description), ...spec.outputs.map((p) => p.description), ...spec.config.map((f) => f.description)];
      return texts.flatMap((text) => [...(text ?? "").matchAll(/\b[a-z][a-z0-9-]*:[a-z][a-z0-9-]*(?:[.-][a-z0-9]+)*\b/g)].map((m) => ({ type: spec.type, named: m[0] })));
    });
    expect(named.filter((n) => !registry.has(n.named))).toEqual([]);
  });

  it("returns undefined from get and a definition from require for known types", () => {
    expect(registry.get("core:nope")).toBeUndefined();
    expect(registry.require("core:math").spec.title).toBe("Math");
    expect(registry.has("core:delay")).toBe(true);
  });

  it("refuses a second registration of the same type", () => {
    const twin = defineNode({ type: "core:math", title: "Other math" }, () => ({}));
    expect(() => createBuiltinRegistry([twin])).toThrow(DuplicateNodeTypeError);
    expect(() => new NodeRegistry().register(twin).register(twin)).toThrow('Node type "core:math" is already registered');
  });

  it("takes extra node types next to the built-in ones", () => {
    const extra = defineNode({ type: "my:echo", title: "Echo", category: "custom" }, () => ({}));
    const withExtra = createBuiltinRegistry([extra]);
    expect(withExtra.get("my:echo")).toBe(withExtra.require("my:echo"));
    expect(withExtra.list().length).toBe(registry.list().length + 1);
  });

  it("lists specs sorted by category, then type", () => {
    const keys = registry.list().map((s) => `${s.category}\u0000${s.type}`);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
  });
});
