import { parseArgs } from "node:util";
import { formatIssue, workflowInterface } from "@weft/types";
import { CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE } from "../support/cli-error.ts";
import { describeInputs, parseInputs } from "../support/cli-inputs.ts";
import { createBuiltinRegistry } from "@weft/nodes";
import { engineFor } from "../support/engine-for.ts";
import { CliLlmService, llmProfileFromEnv } from "../support/cli-llm.ts";
import { loadWorkflowFile, type LoadedFile } from "../support/load-workflow-file.ts";
import { createProgressReporter } from "../support/progress-reporter.ts";
import { defaultServer } from "../support/server-client.ts";
import { FORK_USAGE, forkRun } from "./fork.ts";

export const RUN_USAGE = `weft run <file.json> [--input name=value …] [--json]   run a workflow: progress on stderr, its outputs on stdout (--json: the whole run result); LLM nodes use WEFT_LLM_BASE_URL/_MODEL/_API_KEY, else the offline demo LLM
  ${FORK_USAGE}`;

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      input: { type: "string", short: "i", multiple: true },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      fork: { type: "string" },
      at: { type: "string" },
      set: { type: "string", multiple: true },
      pin: { type: "string", multiple: true },
      server: { type: "string" },
    },
  });
  if (values.help) {
    process.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  if (values.fork !== undefined) {
    if (positionals.length > 0) throw new CliError(`weft run --fork takes no file (the run's own graph is forked), got ${positionals[0]}. Usage: ${FORK_USAGE}`, EXIT_USAGE);
    return forkRun(
      { runId: values.fork, at: values.at, set: values.set ?? [], input: values.input ?? [], pin: values.pin ?? [], server: values.server ?? defaultServer(process.env), json: values.json === true },
      process.env,
    );
  }
  for (const only of ["at", "set", "pin", "server"] as const) {
    if (values[only] !== undefined) throw new CliError(`--${only} goes with --fork <runId>. Usage: ${FORK_USAGE}`, EXIT_USAGE);
  }
  if (positionals.length > 1) throw new CliError(`weft run takes one file, got ${positionals.length}. Usage: ${RUN_USAGE}`, EXIT_USAGE);
  const file = await loadWorkflowFile(positionals[0], "run");
  const llm = new CliLlmService(llmProfileFromEnv());
  try {
    return await runFile(file, values.input ?? [], values.json === true, llm);
  } finally {
    await llm.stop();
  }
}

async function runFile(file: LoadedFile, inputPairs: string[], json: boolean, llm: CliLlmService): Promise<number> {
  const catalog = createBuiltinRegistry();
  const engine = engineFor(file.directory, { llm }, catalog);
  const checked = engine.validate(file.document);
  if (!checked.ok) {
    for (const issue of checked.issues) process.stderr.write(`${formatIssue(issue)}\n`);
    const count = checked.issues.length;
    throw new CliError(`${file.given} has ${count} problem${count === 1 ? "" : "s"}; nothing was run. Fix them (weft validate ${file.given} lists them again).`);
  }
  const iface = workflowInterface(checked.workflow);
  const inputs = parseInputs(inputPairs, iface);

  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    process.stderr.write("\ncancelling… (press Ctrl-C again to quit at once)\n");
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  const result = await engine.run(checked.workflow, {
    inputs,
    signal: controller.signal,
    onEvent: createProgressReporter(
      (text) => process.stderr.write(text),
      (nodeId) => {
        const node = checked.workflow.nodes.find((n) => n.id === nodeId);
        return node && (node.label || catalog.get(node.type)?.spec.title);
      },
    ),
  });
  process.off("SIGINT", onInterrupt);

  process.stdout.write(`${JSON.stringify(json ? result : result.outputs, null, 2)}\n`);
  if (result.error?.code === "INVALID_INPUT") process.stderr.write(`fix: give the inputs with --input name=value; ${describeInputs(iface.inputs)}\n`);
  switch (result.status) {
    case "completed":
      return 0;
    case "failed":
    case "waiting":
      // A local run cannot pause (it is not `mayPause`: an approval node fails it), so `waiting` is not reached.
      return EXIT_FAILED;
    case "cancelled":
      return EXIT_INTERRUPTED;
    default: {
      const never: never = result.status;
      return never;
    }
  }
}
