import { describe, expect, it } from "vitest";
import { NodeFailure } from "@weft/types";
import { compileRegex } from "./regex.ts";

function failureOf(pattern: string, flags = ""): NodeFailure {
  try {
    compileRegex(pattern, flags);
  } catch (e) {
    if (e instanceof NodeFailure) return e;
    throw e;
  }
  throw new Error(`expected /${pattern}/${flags} to be refused`);
}

describe("compileRegex", () => {
  it("compiles valid patterns with their flags", () => {
    const re = compileRegex("(?<year>\\d{4})", "gi");
    expect(re.flags).toBe("gi");
    expect("in 1999".match(re)).toEqual(["1999"]);
  });

  it("names the pattern, the position and the reason of an invalid one", () => {
    const failure = failureOf("[z-a]");
    expect(failure.code).toBe("INVALID_REGEX");
    expect(failure.details).toMatchObject({ pattern: "[z-a]", position: 4 });
    expect(failure.message).toBe("Invalid regular expression /[z-a]/ at position 4: Range out of order in character class.\n  [z-a]\n      ^");
  });

  it.each([
    ["(abc", 4, "Unterminated group"],
    ["a**", 3, "Nothing to repeat"],
    ["x{3,1}", 6, "numbers out of order"],
  ])("locates %s", (pattern, position, reason) => {
    const failure = failureOf(pattern);
    expect(failure.details?.position).toBe(position);
    expect(failure.message).toContain(reason);
    expect(failure.message).toContain(`/${pattern}/`);
  });

  it("refuses unknown or repeated flags", () => {
    const failure = failureOf("a", "gq");
    expect(failure.code).toBe("INVALID_REGEX");
    expect(failure.message).toContain("Invalid flag 'q'");
    expect(failureOf("a", "gg").message).toContain("Duplicated flag");
  });

  it("applies unicode mode when the u flag is set", () => {
    expect(() => compileRegex("\\p{L}", "u")).not.toThrow();
    expect(failureOf("\\u{zz}", "u").code).toBe("INVALID_REGEX");
  });
});
