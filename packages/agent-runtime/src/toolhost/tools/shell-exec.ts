import * as fs from "node:fs";
import { z } from "zod";
import type { ShellExecOk } from "@weft/types";
import { openDirectory, procPath } from "../fs/secure-fs.ts";
import { assertAllowed } from "../shell/allowlist.ts";
import { formatCommandLine, parseCommandLine } from "../shell/command-line.ts";
import { scrubbedEnvironment } from "../shell/environment.ts";
import { mapPathArguments } from "../shell/path-arguments.ts";
import { runProcess } from "../shell/run-process.ts";
import { defineTool } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";

export const ShellExecArgsSchema = z
  .object({
    command: z.string().min(1).max(4096).describe("The command line, e.g. `git status --short` or `grep -n TODO src/app.ts`. No shell: pipes, redirections, `;`, `&&`, wildcards and variables are refused"),
    args: z.array(z.string().max(4096)).max(200).optional().describe("Arguments given one by one, taken literally; then `command` is the program name alone"),
    cwd: z.string().default("@project/").describe("Working folder, as a mount path (default @project/)"),
    timeoutMs: z.number().int().min(1).optional().describe("Time limit in milliseconds (default 3000, capped by the host)"),
  })
  .strict();

function truncationMarker(limit: number): string {
  return `\n…[output truncated: over ${limit} bytes]`;
}

export const shellExec = defineTool({
  name: "shell.exec",
  targetKind: "command",
  args: ShellExecArgsSchema,
  plan(args, env) {
    const argv = parseCommandLine(args.command, args.args);
    const commandText = formatCommandLine(argv);
    assertAllowed(argv, env.commands, commandText);
    const cwd = env.mounts.locate(args.cwd, { intent: "read", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    const mapped = mapPathArguments(argv, { cwd: cwd.real, mounts: env.mounts, stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes, commandText });
    const timeoutMs = Math.min(args.timeoutMs ?? env.limits.shellTimeoutMs, env.limits.maxShellTimeoutMs);
    return {
      target: commandText,
      async execute(): Promise<ShellExecOk> {
        const environment: Record<string, string> = { ...scrubbedEnvironment(env.hostEnv, env.envAllowlist), GIT_CEILING_DIRECTORIES: env.mounts.gitCeilings().join(":") };
        const executable = Bun.which(argv[0], { PATH: environment.PATH });
        if (!executable) throw new ToolFailure("ENOENT", `\`${argv[0]}\` is allowed but not installed on this machine.`, { command: commandText });
        // The process starts in the folder held by this descriptor, so a folder swapped for a link meanwhile cannot move it.
        const dirFd = openDirectory(cwd);
        let outcome;
        try {
          outcome = await runProcess(executable, mapped, {
            cwd: procPath(dirFd),
            env: environment,
            limits: { timeoutMs, maxOutputBytes: env.limits.maxShellOutputBytes },
            signal: env.signal,
          });
        } finally {
          fs.closeSync(dirFd);
        }
        const max = env.limits.maxShellOutputBytes;
        const stdout = env.mounts.virtualise(outcome.stdout.toString("utf8"), env.stateScope) + (outcome.stdoutTruncated ? truncationMarker(max) : "");
        const stderr = env.mounts.virtualise(outcome.stderr.toString("utf8"), env.stateScope) + (outcome.stderrTruncated ? truncationMarker(max) : "");
        if (outcome.endedBy === "timeout") {
          throw new ToolFailure("E_TIMEOUT", `\`${commandText}\` did not finish within ${timeoutMs} ms and was stopped with everything it started.`, { command: commandText, timeoutMs, stdout, stderr });
        }
        if (outcome.endedBy === "abort") throw new ToolFailure("E_ABORTED", `\`${commandText}\` was cancelled.`, { command: commandText });
        return {
          ok: true,
          argv,
          cwd: cwd.virtual.text,
          exitCode: outcome.exitCode,
          signal: outcome.signal,
          stdout,
          stderr,
          stdoutTruncated: outcome.stdoutTruncated,
          stderrTruncated: outcome.stderrTruncated,
          ...(outcome.endedBy === "output-limit" ? { killedBy: "output-limit" as const } : {}),
          durationMs: outcome.durationMs,
        };
      },
    };
  },
});
