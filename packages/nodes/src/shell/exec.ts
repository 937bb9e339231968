import { ShellExecOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "../fs/tool-call.ts";

export const shellExec = defineNode(
  {
    type: "shell:exec",
    title: "Run command",
    description:
      "Runs one allowlisted read-only command (such as ls, cat, head, wc, grep, git status|log|diff) without a shell, in a sandbox folder. Pipes, redirections, `;`, `&&`, wildcards, variables and paths outside the mounts are refused. Gives the exit code and the output (each stream capped); a time limit (default 3 s) stops it and everything it started.",
    category: "shell",
    inputs: [
      { id: "command", type: "string", required: true, label: "Command", description: "The command line, e.g. git log --oneline -5." },
      { id: "args", type: "array", label: "Arguments", description: "Arguments one by one, taken literally; then Command is the program name alone." },
      { id: "cwd", type: "string", default: "@project/", label: "Folder", description: "Working folder, as a mount path (default @project/)." },
      { id: "timeoutMs", type: "integer", min: 1, label: "Timeout (ms)", description: "Time limit in milliseconds (default 3000; the host caps it)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "exitCode", type: "integer", label: "Exit code", description: "The command's exit code (null when it was killed)." },
      { id: "stdout", type: "string", label: "Output", description: "Standard output, capped, with a marker when cut." },
      { id: "stderr", type: "string", label: "Errors", description: "Standard error, capped, with a marker when cut." },
    ],
  },
  async (inputs, ctx) => {
    const result = await callToolHost(ctx, "shell:exec", "shell.exec", { command: inputs.command, args: inputs.args, cwd: inputs.cwd, timeoutMs: inputs.timeoutMs });
    return toolOutputs(result, ShellExecOkSchema, (ok) => ({ exitCode: ok.exitCode, stdout: ok.stdout, stderr: ok.stderr }));
  },
);
