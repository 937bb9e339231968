import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { CliError, EXIT_USAGE } from "./cli-error.ts";

export interface LoadedFile {
  /** The path as the user gave it (for messages). */
  given: string;
  /** Absolute path of the file. */
  path: string;
  /** Its folder: where the skills it calls are looked up. */
  directory: string;
  /** The parsed JSON document (not yet checked against the workflow schema). */
  document: unknown;
}

function position(text: string, offset: number): { line: number; column: number; lineText: string } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const lineEnd = text.indexOf("\n", offset);
  return { line, column: offset - lineStart + 1, lineText: text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd) };
}

/** Where strict JSON parsing stops, found with jsonc-parser (Bun's JSON.parse gives no position). */
function syntaxError(path: string, text: string): CliError {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return new CliError(`${path} is not valid JSON. Fix: check it with a JSON validator.`);
  const at = position(text, first.offset);
  const caret = `${" ".repeat(Math.max(0, at.column - 1))}^`;
  return new CliError(
    `${path}:${at.line}:${at.column}: invalid JSON (${printParseErrorCode(first.error)}) at line ${at.line}, column ${at.column}\n` +
      `    ${at.lineText}\n    ${caret}\n` +
      `Fix the JSON at that spot (a missing comma or quote, a trailing comma or a comment are the usual causes).`,
  );
}

/** Reads and parses a workflow file, with a precise message for every way it can go wrong. */
export async function loadWorkflowFile(file: string | undefined, command: string): Promise<LoadedFile> {
  if (!file) throw new CliError(`weft ${command} needs a workflow file: weft ${command} <file.json>`, EXIT_USAGE);
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a folder, not a file" : code === "EACCES" ? "permission denied" : (err as Error).message;
    throw new CliError(`cannot read ${file}: ${why}. Fix: give the path of a workflow .json file.`);
  }
  if (text.trim() === "") throw new CliError(`${file} is empty. Fix: a workflow file holds one JSON object with "id", "name", "nodes" and "edges".`);
  try {
    return { given: file, path, directory: dirname(path), document: JSON.parse(text) };
  } catch {
    throw syntaxError(file, text);
  }
}
