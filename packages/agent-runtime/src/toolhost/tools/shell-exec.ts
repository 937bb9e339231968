import * as fs from "node:fs";
import { z } from "zod";
import type { ShellExecOk } from "@weft/types";
import { openDirectory, procPath, type Located } from "../fs/secure-fs.ts";
import { assertAllowed } from "../shell/allowlist.ts";
import { SANDBOX_HELP, SANDBOX_HOME, runInSandbox, sandboxCommand, sandboxPath } from "../shell/bubblewrap.ts";
import { formatCommandLine, parseCommandLine } from "../shell/command-line.ts";
import { scrubbedEnvironment } from "../shell/environment.ts";
import { gitEnvironment, hardenGitArguments } from "../shell/git-hardening.ts";
import { assertWorkingFolderPermitted, mapPathArguments } from "../shell/path-arguments.ts";
import { runProcess, type ProcessLimits, type ProcessOutcome } from "../shell/run-process.ts";
import { sandboxLayout } from "../shell/sandbox-layout.ts";
import { defineTool, type ToolEnv } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";

export const ShellExecArgsSchema = z
  .object({
    command: z
      .string()
      .min(1)
      .max(4096)
      .describe("The command line, e.g. `git status --short` or `grep -n TODO src/app.ts`. No shell: pipes, redirections, `;`, `&&`, wildcards and variables are refused"),
    args: z.array(z.string().max(4096)).max(200).optional().describe("Arguments given one by one, taken literally; then `command` is the program name alone"),
    cwd: z.string().default("@project/").describe("Working folder, as a mount path (default @project/)"),
    timeoutMs: z.number().int().min(1).optional().describe("Time limit in milliseconds (default 3000, capped by the host)"),
  })
  .strict();

function truncationMarker(limit: number): string {
  return `\n…[output truncated: over ${limit} bytes]`;
}

/**
 * Starts the command: inside bubblewrap, or (sandbox off) directly in the folder held by a
 * descriptor, so a folder swapped for a link after the checks cannot move it. Opening the folder
 * also refuses a working folder that passes through a link, in both cases.
 */
async function start(executable: string, argv: string[], env: ToolEnv, cwd: Located, environment: Record<string, string>, limits: ProcessLimits): Promise<ProcessOutcome> {
  const sandbox = env.sandbox;
  const dirFd = openDirectory(cwd);
  try {
    if (sandbox.kind !== "bwrap") return await runProcess(executable, argv, { cwd: procPath(dirFd), env: environment, limits, signal: env.signal });
    const layout = sandboxLayout({ mounts: env.mounts, pathRules: env.pathRules, stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes, cwd: cwd.real, network: sandbox.network });
    // bubblewrap finds the program on the command's PATH, inside the sandbox.
    const command = sandboxCommand(argv, limits.timeoutMs, environment.PATH);
    return await runInSandbox(sandbox.bwrap, layout, command, { env: environment, limits, signal: env.signal });
  } finally {
    fs.closeSync(dirFd);
  }
}

export const shellExec = defineTool({
  name: "shell.exec",
  targetKind: "command",
  args: ShellExecArgsSchema,
  plan(args, env) {
    if (env.sandbox.kind === "unavailable") {
      throw new ToolFailure("E_SANDBOX_UNAVAILABLE", `shell.exec cannot run commands on this machine: ${env.sandbox.reason}. ${SANDBOX_HELP}`, { reason: env.sandbox.reason });
    }
    const argv = parseCommandLine(args.command, args.args);
    const commandText = formatCommandLine(argv);
    assertAllowed(argv, env.commands, commandText);
    const cwd = env.mounts.locate(args.cwd, { intent: "read", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    const argumentContext = { cwd, mounts: env.mounts, pathRules: env.pathRules, stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes, commandText };
    assertWorkingFolderPermitted(argumentContext);
    const mapped = hardenGitArguments(mapPathArguments(argv, argumentContext));
    const timeoutMs = Math.min(args.timeoutMs ?? env.limits.shellTimeoutMs, env.limits.maxShellTimeoutMs);
    return {
      target: commandText,
      async execute(): Promise<ShellExecOk> {
        const sandboxed = env.sandbox.kind === "bwrap";
        const environment = scrubbedEnvironment(env.hostEnv, env.envAllowlist, {
          ...gitEnvironment(),
          GIT_CEILING_DIRECTORIES: env.mounts.gitCeilings().join(":"),
          // An empty HOME: no dotfiles (git's, a shell's) from the host.
          HOME: sandboxed ? SANDBOX_HOME : "/nonexistent",
        });
        if (sandboxed) environment.PATH = sandboxPath(environment.PATH);
        const executable = Bun.which(argv[0], { PATH: environment.PATH });
        if (!executable)
          throw new ToolFailure("ENOENT", `\`${argv[0]}\` is allowed but not installed on this machine${sandboxed ? " (in a system folder: /usr, /bin)" : ""}.`, { command: commandText });
        const outcome = await start(executable, mapped, env, cwd, environment, { timeoutMs, maxOutputBytes: env.limits.maxShellOutputBytes });
        const max = env.limits.maxShellOutputBytes;
        const stdout = env.mounts.virtualise(outcome.stdout.toString("utf8"), env.stateScope) + (outcome.stdoutTruncated ? truncationMarker(max) : "");
        const stderr = env.mounts.virtualise(outcome.stderr.toString("utf8"), env.stateScope) + (outcome.stderrTruncated ? truncationMarker(max) : "");
        if (outcome.endedBy === "timeout") {
          throw new ToolFailure("E_TIMEOUT", `\`${commandText}\` did not finish within ${timeoutMs} ms and was stopped with everything it started.`, {
            command: commandText,
            timeoutMs,
            stdout,
            stderr,
          });
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
