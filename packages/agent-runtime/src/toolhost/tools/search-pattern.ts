import { RegExpParser, visitRegExpAST } from "@eslint-community/regexpp";
import type { Node as RegExpNode } from "@eslint-community/regexpp/ast";
import { ToolFailure } from "../tool-failure.ts";
import { messageOf } from "@weft/types";

const MAX_PATTERN_LENGTH = 1000;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function repeats(node: RegExpNode): boolean {
  return node.type === "Quantifier" && node.max > 1;
}

/**
 * Refuses patterns with a repeated group that itself repeats (`(a+)+`, `(\w*)*`): on a line that
 * almost matches they take exponential time, and a regex cannot be interrupted once running.
 */
function assertNoNestedRepetition(pattern: string): void {
  let ast;
  try {
    ast = new RegExpParser().parsePattern(pattern, 0, pattern.length, { unicode: false });
  } catch (error) {
    throw new ToolFailure("E_SCHEMA_VALIDATION", `The pattern is not a valid regular expression: ${messageOf(error)}. Set regex to false to search for the text literally.`, { pattern });
  }
  let nested: string | undefined;
  visitRegExpAST(ast, {
    onQuantifierEnter(node) {
      if (nested || !repeats(node)) return;
      for (let up: RegExpNode | null = node.parent; up; up = up.parent) {
        if (repeats(up)) {
          nested = up.raw;
          return;
        }
      }
    },
  });
  if (nested) {
    throw new ToolFailure(
      "E_SCHEMA_VALIDATION",
      `The pattern repeats a group that repeats itself (${nested}), which can take exponential time. Simplify it (e.g. \`(ab)+\` instead of \`(a+b?)+\`) or search literally.`,
      { pattern },
    );
  }
}

/** The matcher for fs.search: the text literally, or a regular expression without nested repetition. */
export function compileSearchPattern(pattern: string, options: { regex: boolean; caseSensitive: boolean }): RegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new ToolFailure("E_SCHEMA_VALIDATION", `The pattern is ${pattern.length} characters, over the limit of ${MAX_PATTERN_LENGTH}.`);
  const source = options.regex ? pattern : escapeRegExp(pattern);
  if (options.regex) assertNoNestedRepetition(source);
  try {
    return new RegExp(source, options.caseSensitive ? "" : "i");
  } catch (error) {
    throw new ToolFailure("E_SCHEMA_VALIDATION", `The pattern is not a valid regular expression: ${messageOf(error)}. Set regex to false to search for the text literally.`, { pattern });
  }
}
