import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { NodeFailure } from "@weft/types";
import { defineNode } from "../define-node.ts";

const REASONS: Record<string, string> = {
  InvalidSymbol: "unexpected text",
  InvalidNumberFormat: "malformed number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "comments are not allowed in JSON",
  UnexpectedEndOfString: "unterminated string (or a raw line break inside a string)",
  UnexpectedEndOfNumber: "malformed number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "control character inside a string",
};

/** Line and column (both from 1) of an offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * JSON.parse's error names no position in every runtime (Bun's names none), so a failed parse is
 * re-scanned with jsonc-parser in strict mode to find where the text stops being JSON.
 */
function locateError(text: string, fallback: string): NodeFailure {
  if (text.trim() === "") return new NodeFailure("INVALID_JSON", "Invalid JSON: the text is empty. Give a JSON value such as {} or [].", { line: 1, column: 1, offset: 0 });
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return new NodeFailure("INVALID_JSON", `Invalid JSON: ${fallback}`, {});
  const { line, column } = lineColumn(text, first.offset);
  const code = printParseErrorCode(first.error);
  const found = text.slice(first.offset, first.offset + Math.max(first.length, 1));
  const trailingComma = (found === "]" || found === "}") && text.slice(0, first.offset).trimEnd().endsWith(",");
  const reason = trailingComma ? `a comma before "${found}" (JSON allows no trailing comma)` : (REASONS[code] ?? code);
  const sourceLine = text.split("\n")[line - 1] ?? "";
  const shown = sourceLine.length > 120 ? sourceLine.slice(Math.max(0, column - 60), column + 60) : sourceLine;
  const caret = sourceLine.length > 120 ? Math.min(column - 1, 59) : column - 1;
  return new NodeFailure(
    "INVALID_JSON",
    `Invalid JSON at line ${line}, column ${column}: ${reason}${trailingComma ? "" : found.trim() ? ` (found ${JSON.stringify(found)})` : " (found the end of the text)"}.\n  ${shown}\n  ${" ".repeat(caret)}^`,
    { line, column, offset: first.offset, reason: code },
  );
}

export const jsonParse = defineNode(
  {
    type: "core:json-parse",
    title: "Parse JSON",
    description: "Parses JSON text into a value. Invalid JSON fails with the line and column of the first problem.",
    category: "data",
    inputs: [{ id: "text", type: "string", required: true, multiline: true, label: "JSON text", description: "The JSON to parse." }],
    outputs: [{ id: "value", type: "json", label: "Value", description: "The parsed value." }],
    flags: { idempotent: true },
  },
  (inputs) => {
    const text = inputs.text as string;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch (error) {
      throw locateError(text, (error as Error).message);
    }
  },
);
