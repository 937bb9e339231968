import { RegExpSyntaxError, RegExpValidator } from "@eslint-community/regexpp";
import { NodeFailure } from "@weft/types";

const validator = new RegExpValidator();

/**
 * Compiles a user-supplied regular expression. The JavaScript engine's own error names neither the
 * position nor (in Bun) the pattern, so the pattern is first checked with regexpp, which does:
 * an invalid one is a NodeFailure `INVALID_REGEX` with the pattern, the position and a caret line.
 */
export function compileRegex(pattern: string, flags: string): RegExp {
  try {
    validator.validateFlags(flags);
  } catch (error) {
    const reason = error instanceof RegExpSyntaxError ? stripPrefix(error.message) : String(error);
    throw new NodeFailure("INVALID_REGEX", `Invalid regular expression flags ${JSON.stringify(flags)} for /${pattern}/: ${reason}. Use a combination of d, g, i, m, s, u, v, y, each at most once.`, {
      pattern,
      flags,
      reason,
    });
  }
  try {
    validator.validatePattern(pattern, 0, pattern.length, { unicode: flags.includes("u"), unicodeSets: flags.includes("v") });
  } catch (error) {
    if (!(error instanceof RegExpSyntaxError)) throw error;
    const position = Math.min(error.index, pattern.length);
    const reason = stripPrefix(error.message);
    throw new NodeFailure("INVALID_REGEX", `Invalid regular expression /${pattern}/ at position ${position}: ${reason}.\n  ${pattern}\n  ${" ".repeat(position)}^`, {
      pattern,
      flags,
      position,
      reason,
    });
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    // regexpp accepted it but this JavaScript engine does not (a newer syntax): no position to give.
    throw new NodeFailure("INVALID_REGEX", `Invalid regular expression /${pattern}/${flags}: ${(error as Error).message}`, { pattern, flags });
  }
}

/** regexpp messages read "Invalid regular expression: /x/: reason"; keep the reason. */
function stripPrefix(message: string): string {
  return message.replace(/^Invalid regular expression:\s*(\/.*\/[a-z]*:\s*)?/s, "");
}
