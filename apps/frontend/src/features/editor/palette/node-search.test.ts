// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { fuzzyScore } from "../../../shared/lib/fuzzy.ts";
import { searchSpecs } from "./node-search.ts";
import { testSpecs } from "../../../shared/testing/catalog.ts";

describe("fuzzy search", () => {
  it("matches in order, prefers direct and word-start hits", () => {
    expect(fuzzyScore("tt", "Text template")).not.toBeNull();
    expect(fuzzyScore("xz", "Text template")).toBeNull();
    expect(fuzzyScore("tem", "Text template")!).toBeGreaterThan(fuzzyScore("tem", "the mat")!);
  });

  it("finds node types by title, type and category; descriptions only by the words as typed", () => {
    expect(searchSpecs(testSpecs, "llm")[0].type).toBe("core:llm");
    expect(searchSpecs(testSpecs, "txtmpl")[0].type).toBe("core:text-template");
    expect(searchSpecs(testSpecs, "chat model").map((s) => s.type)).toEqual(["core:llm"]);
    // "cmdl" is scattered through "Calls a chat model", but a description never matches fuzzily.
    expect(searchSpecs(testSpecs, "cmdl")).toEqual([]);
    expect(searchSpecs(testSpecs, "")).toHaveLength(testSpecs.length);
  });
});
