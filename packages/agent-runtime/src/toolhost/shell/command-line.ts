import { parse } from "shell-quote";
import { ToolFailure } from "../tool-failure.ts";

const NOT_A_SHELL = "Commands run without a shell: give one program and its arguments, e.g. `git status --short` or `grep -n TODO src/a.ts`.";

function refuse(command: string, what: string, details: Record<string, unknown> = {}): ToolFailure {
  return new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(command)}: ${what}. ${NOT_A_SHELL}`, { command, ...details });
}

/** Substitutions refused anywhere, quoted or not: the model expecting a shell must learn there is none. */
function assertNoSubstitution(command: string, text: string): void {
  if (text.includes("\u0000")) throw refuse(command, "it contains a NUL byte");
  if (/[\r\n]/.test(text)) throw refuse(command, "it contains a line break (only one command per call)");
  if (text.includes("`")) throw refuse(command, "it contains a backtick (command substitution is not supported)");
  if (text.includes("$(")) throw refuse(command, "it contains `$(` (command substitution is not supported)");
  if (text.includes("${")) throw refuse(command, "it contains `${` (variable expansion is not supported)");
}

/**
 * Turns the model's command into an argument vector, refusing every shell feature rather than
 * interpreting it: operators (`;`, `&&`, `||`, `|`, `&`), redirections, subshells, globs, comments,
 * variables, command substitution. With `args`, `command` is the program alone and the arguments
 * are taken literally.
 */
export function parseCommandLine(command: string, args?: string[]): string[] {
  assertNoSubstitution(command, command);
  if (args !== undefined) {
    for (const arg of args) assertNoSubstitution(command, arg);
    if (/\s/.test(command.trim())) throw refuse(command, "with `args`, `command` must be the program name alone");
    return [command.trim(), ...args];
  }
  const variables: string[] = [];
  const tokens = parse(command, (name) => {
    variables.push(name);
    return "";
  });
  if (variables.length > 0) throw refuse(command, `it uses the variable $${variables[0] || "?"} (variables are not expanded)`);
  const argv: string[] = [];
  for (const token of tokens) {
    if (typeof token === "string") {
      argv.push(token);
      continue;
    }
    if ("comment" in token) throw refuse(command, "it contains a `#` comment");
    if (token.op === "glob") throw refuse(command, `it contains the wildcard ${JSON.stringify(token.pattern)} (wildcards are not expanded; name the files, or use fs.search / fs.list)`);
    const operator = token.op;
    const kind = operator === "|" ? "a pipe" : /[<>]/.test(operator) ? "a redirection" : operator === "(" || operator === ")" ? "a subshell" : "a command separator";
    throw refuse(command, `it contains ${kind} \`${operator}\` (one command per call; no pipes, redirections or separators)`, { operator });
  }
  if (argv.length === 0) throw refuse(command, "it is empty");
  return argv;
}

/** The command line as text, quoted only where needed, so it reads back to the same argument vector. */
export function formatCommandLine(argv: string[]): string {
  return argv.map((arg) => (/^[A-Za-z0-9_@%+=:,./~^-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(" ");
}
