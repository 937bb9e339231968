import { describe, expect, it } from "vitest";
import { categoryLabel } from "./category-label.ts";

describe("palette category labels", () => {
  it("writes acronyms in capitals and other names with a capital first letter", () => {
    expect(categoryLabel("llm")).toBe("LLM");
    expect(categoryLabel("http")).toBe("HTTP");
    expect(categoryLabel("data")).toBe("Data");
    expect(categoryLabel("3 matches")).toBe("3 matches");
  });
});
