#!/usr/bin/env bun
/** The `weft` command line: validate and run workflow files, list node types, run a queue worker. */
import { agentCommand, AGENT_USAGE } from "./commands/agent.ts";
import { compactCommand, COMPACT_USAGE } from "./commands/compact.ts";
import { evalCommand, EVAL_USAGE } from "./commands/eval.ts";
import { nodesCommand, NODES_USAGE } from "./commands/nodes.ts";
import { runCommand, RUN_USAGE } from "./commands/run.ts";
import { validateCommand, VALIDATE_USAGE } from "./commands/validate.ts";
import { workerCommand, WORKER_USAGE } from "./commands/worker.ts";
import { CliError, EXIT_FAILED, EXIT_USAGE } from "./support/cli-error.ts";
import { messageOf } from "@weft/types";

const USAGE = `weft — check and run Weft workflows

  ${VALIDATE_USAGE}
  ${RUN_USAGE}
  ${NODES_USAGE}
  ${AGENT_USAGE}
  ${WORKER_USAGE}
  ${COMPACT_USAGE}
  ${EVAL_USAGE}

Skills called by a workflow are looked up in the folder of its file.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "validate":
      return validateCommand(rest);
    case "run":
      return runCommand(rest);
    case "nodes":
      return nodesCommand(rest);
    case "agent":
      return agentCommand(rest);
    case "worker":
      return workerCommand(rest);
    case "compact":
      return compactCommand(rest);
    case "eval":
      return evalCommand(rest);
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case undefined:
      process.stderr.write(`${USAGE}\n`);
      return EXIT_USAGE;
    default:
      throw new CliError(`unknown command "${command}". The commands are validate, run, nodes, agent, worker, compact and eval.\n\n${USAGE}`, EXIT_USAGE);
  }
}

function isArgumentError(err: unknown): err is Error {
  const code: unknown = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliError) {
      process.stderr.write(`weft: ${err.message}\n`);
      process.exitCode = err.exitCode;
    } else if (isArgumentError(err)) {
      process.stderr.write(`weft: ${err.message}. Run weft --help for the usage.\n`);
      process.exitCode = EXIT_USAGE;
    } else {
      // Not the user's fault: say what happened without a stack trace (WEFT_DEBUG=1 shows it).
      const message = messageOf(err);
      process.stderr.write(`weft: unexpected error: ${message}\n`);
      if (process.env.WEFT_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = EXIT_FAILED;
    }
  },
);
