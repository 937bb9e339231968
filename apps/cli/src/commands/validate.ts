import { parseArgs } from "node:util";
import { formatIssue } from "@weft/types";
import { CliError, EXIT_FAILED, EXIT_USAGE } from "../support/cli-error.ts";
import { engineFor } from "../support/engine-for.ts";
import { loadWorkflowFile } from "../support/load-workflow-file.ts";

export const VALIDATE_USAGE = "weft validate <file.json> [--json]   check a workflow and print every problem (exit 1 if any)";

export async function validateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    process.stdout.write(`${VALIDATE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new CliError(`weft validate takes one file, got ${positionals.length}. Usage: ${VALIDATE_USAGE}`, EXIT_USAGE);
  const file = await loadWorkflowFile(positionals[0], "validate");
  const result = engineFor(file.directory).validate(file.document);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result.ok ? { ok: true, issues: [] } : result, null, 2)}\n`);
    return result.ok ? 0 : EXIT_FAILED;
  }
  if (result.ok) {
    const { nodes, edges } = result.workflow;
    process.stdout.write(`✓ ${file.given} is valid (${nodes.length} node${nodes.length === 1 ? "" : "s"}, ${edges.length} edge${edges.length === 1 ? "" : "s"})\n`);
    return 0;
  }
  for (const issue of result.issues) process.stdout.write(`${formatIssue(issue)}\n`);
  const count = result.issues.length;
  process.stdout.write(`✗ ${count} problem${count === 1 ? "" : "s"} in ${file.given}\n`);
  return EXIT_FAILED;
}
