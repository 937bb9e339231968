import type { InterfacePort, WorkflowInterface } from "@weft/types";
import { CliError, EXIT_USAGE } from "./cli-error.ts";

/** `text (string, required)`, `times (number, default 2)`. */
export function describeInputs(ports: InterfacePort[]): string {
  if (ports.length === 0) return "it takes no inputs";
  return ports.map((p) => `${p.name} (${p.type}${p.required ? ", required" : ""}${p.default !== undefined ? `, default ${JSON.stringify(p.default)}` : ""})`).join(", ");
}

/**
 * `--input name=value` pairs as interface inputs. A value is read as JSON when it parses (`3`,
 * `true`, `[1,2]`, `"quoted"`), else as text; a string input always keeps the text as typed.
 */
export function parseInputs(pairs: string[], iface: WorkflowInterface): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError(`--input "${pair}" is not name=value. Fix: write it as --input name=value, e.g. --input text="hello"`, EXIT_USAGE);
    const name = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    const port = iface.inputs.find((p) => p.name === name);
    if (!port) throw new CliError(`this workflow has no input "${name}". Fix: use one of its inputs: ${describeInputs(iface.inputs)}`, EXIT_USAGE);
    if (name in inputs) throw new CliError(`--input ${name} is given twice. Fix: give each input once.`, EXIT_USAGE);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself.
    }
    inputs[name] = port.type === "string" && typeof value !== "string" ? raw : value;
  }
  return inputs;
}
