import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { CommandRuleInput } from "@weft/types";
import { DEFAULT_COMMAND_RULES } from "../shell/allowlist.ts";
import { gitEnvironment } from "../shell/git-hardening.ts";
import { SECRET, createFixture, resultText, type Fixture } from "../testing/fixture.ts";
import { uniqueSeconds, untilProcesses } from "../testing/processes.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture();
  fx.put("project/notes.txt", "alpha\nbeta TODO\ngamma\n");
  fx.put("project/src/a.ts", "// TODO one\n");
  fx.put("pkg/readme.md", "package readme\n");
});
afterEach(() => fx.cleanup());

const exec = (args: Record<string, unknown>, host = fx.host) => host.call("shell.exec", args, { runId: "r" });

describe("shell.exec", () => {
  it("runs an allowlisted command in the project folder and returns its output and exit code", async () => {
    const result = await exec({ command: "grep -n TODO notes.txt" });
    expect(result).toMatchObject({ ok: true, argv: ["grep", "-n", "TODO", "notes.txt"], cwd: "@project/", exitCode: 0, signal: null, stdout: "2:beta TODO\n", stderr: "", stdoutTruncated: false });
    expect(await exec({ command: "grep -n nothing notes.txt" })).toMatchObject({ ok: true, exitCode: 1, stdout: "" });
    expect(await exec({ command: "cat", args: ["src/a.ts"] })).toMatchObject({ ok: true, stdout: "// TODO one\n" });
  });

  it("runs in a folder inside a mount, takes mount paths as arguments, and shows mount paths in its output", async () => {
    expect(await exec({ command: "cat a.ts", cwd: "@project/src" })).toMatchObject({ ok: true, stdout: "// TODO one\n" });
    expect(await exec({ command: "cat @pkg/readme.md" })).toMatchObject({ ok: true, stdout: "package readme\n" });
    const grep = await exec({ command: "grep -rn TODO @project/src" });
    expect(grep).toMatchObject({ ok: true, stdout: "@project/src/a.ts:1:// TODO one\n" });
    expect(resultText(grep)).not.toContain(fx.base);
    expect(await exec({ command: "pwd", cwd: "@project/src" })).toMatchObject({ ok: true, stdout: "@project/src\n" });
  });

  it.each([
    ["cat /etc/passwd", "absolute path"],
    ["cat ../outside/secret.txt", "`..` segment"],
    ["cat src/../../outside/secret.txt", "`..` segment"],
    ["cat ~/.bashrc", "home folder"],
    ["grep -f/etc/passwd x", "absolute path"],
    ["grep --file=/etc/passwd x", "absolute path"],
    ["cat @project/../outside/secret.txt", "`..` segment"],
  ])("refuses the path argument in %j", async (command, reason) => {
    const result = await exec({ command });
    expect(result).toMatchObject({ ok: false, error: { code: "E_SANDBOX_VIOLATION" } });
    if (!result.ok) expect(result.error.message).toContain(reason);
    expect(resultText(result)).not.toContain(SECRET);
  });

  it("refuses arguments and working folders that pass through symlinks", async () => {
    symlinkSync(fx.outside, join(fx.project, "out"));
    for (const args of [{ command: "cat out/secret.txt" }, { command: "ls out" }, { command: "ls", cwd: "@project/out" }, { command: "grep -r TOP out" }]) {
      const result = await exec(args);
      expect(result, JSON.stringify(args)).toMatchObject({ ok: false, error: { code: "E_SANDBOX_VIOLATION" } });
      expect(resultText(result)).not.toContain(SECRET);
    }
  });

  it("refuses every injection form and never runs the injected command", async () => {
    const canary = join(fx.project, "pwned");
    for (const command of [
      "ls; touch pwned",
      "ls && touch pwned",
      "ls || touch pwned",
      "ls | touch pwned",
      "ls & touch pwned",
      "ls `touch pwned`",
      "ls $(touch pwned)",
      'ls "$(touch pwned)"',
      "ls > pwned",
      "ls\ntouch pwned",
      "touch pwned",
      "find . -exec touch pwned {} +",
      "find . -fprint pwned",
      "git diff --output=pwned",
      "git -C . status",
    ]) {
      const result = await exec({ command });
      expect(result, command).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
    }
    expect(existsSync(canary)).toBe(false);
  });

  it("passes shell characters as plain data when no shell is involved", async () => {
    const result = await exec({ command: "grep", args: ["-c", "TODO; touch pwned", "notes.txt"] });
    expect(result).toMatchObject({ ok: true, exitCode: 1, stdout: "0\n" });
    expect(existsSync(join(fx.project, "pwned"))).toBe(false);
  });

  it("scrubs the environment: only allowlisted variables, never secret-looking ones", async () => {
    const host = createFixture({
      commands: [{ command: "env" }],
      envAllowlist: ["PATH", "HOME", "LANG", "OPENAI_API_KEY", "GITHUB_TOKEN"],
      hostEnv: { PATH: process.env.PATH, HOME: "/home/user", LANG: "C.UTF-8", OPENAI_API_KEY: "sk-live-123", GITHUB_TOKEN: "ghp_x", AWS_SECRET_ACCESS_KEY: "aws", UNLISTED: "u" },
    });
    onTestFinished(() => host.cleanup());
    const result = await exec({ command: "env" }, host.host);
    expect(result).toMatchObject({ ok: true, exitCode: 0 });
    if (!result.ok) return;
    const lines = (result.stdout as string).trim().split("\n");
    const names = lines.map((l) => l.slice(0, l.indexOf("="))).sort();
    // bubblewrap adds PWD, the working folder.
    expect(names).toEqual(["GIT_CEILING_DIRECTORIES", "HOME", "LANG", "PAGER", "PATH", "PWD", ...Object.keys(gitEnvironment())].sort());
    expect(lines).toContain("PWD=@project");
    expect(result.stdout).not.toMatch(/sk-live|ghp_x|aws|UNLISTED/);
    // The host's HOME is replaced by the sandbox's empty /tmp.
    expect(lines).toContain("HOME=/tmp");
  });

  it("stops a command at its timeout and kills every process it started", async () => {
    const host = createFixture({ commands: [...DEFAULT_COMMAND_RULES, { command: "sh" }] satisfies CommandRuleInput[] });
    onTestFinished(() => host.cleanup());
    const seconds = uniqueSeconds();
    // The sleeps last 30 s or more: a result before then is the timeout's (its code says so), not the command's end.
    const running = exec({ command: "sh", args: ["-c", `sleep ${seconds} & sleep ${seconds} & (sleep ${seconds}; echo late) & echo started; wait`], timeoutMs: 3000 }, host.host);
    // The command's pids live in its own namespace: find its processes by their command line.
    await untilProcesses(`sleep ${seconds}`, "the command's three sleeps", (pids) => pids.length >= 3);
    const result = await running;
    expect(result).toMatchObject({ ok: false, error: { code: "E_TIMEOUT", details: { timeoutMs: 3000, stdout: "started\n" } } });
    await untilProcesses(`sleep ${seconds}`, "every sleep to be killed", (pids) => pids.length === 0);
  });

  it("kills what a finished command left running in the background", async () => {
    const host = createFixture({ commands: [{ command: "sh" }] });
    onTestFinished(() => host.cleanup());
    const seconds = uniqueSeconds();
    const result = await exec({ command: "sh", args: ["-c", `sleep ${seconds} > /dev/null 2>&1 & echo $!`] }, host.host);
    expect(result).toMatchObject({ ok: true, exitCode: 0 });
    await untilProcesses(`sleep ${seconds}`, "the background sleep to be killed", (pids) => pids.length === 0);
  });

  it("caps runaway output, marks the cut, and stops the command", async () => {
    const host = createFixture({ commands: [{ command: "yes" }], limits: { maxShellOutputBytes: 64 * 1024, shellTimeoutMs: 10_000 } });
    onTestFinished(() => host.cleanup());
    const result = await exec({ command: "yes" }, host.host);
    // Stopped by the output limit, not by the 10 s timeout: `killedBy` says which.
    expect(result).toMatchObject({ ok: true, stdoutTruncated: true, killedBy: "output-limit", signal: "SIGKILL", exitCode: null });
    if (!result.ok) return;
    const stdout = result.stdout as string;
    expect(stdout.startsWith("y\ny\n")).toBe(true);
    expect(stdout).toContain("[output truncated: over 65536 bytes]");
    expect(Buffer.byteLength(stdout)).toBeLessThan(64 * 1024 + 100);
  });

  it("honours the caller's abort signal", async () => {
    const host = createFixture({ commands: [{ command: "sleep" }] });
    onTestFinished(() => host.cleanup());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await host.host.call("shell.exec", { command: "sleep 20", timeoutMs: 10_000 }, { runId: "r", signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
  });

  it("never reports on a git repository above the project folder", async () => {
    execFileSync("git", ["init", "-q", fx.base]);
    const result = await exec({ command: "git status" });
    expect(result).toMatchObject({ ok: true, exitCode: 128 });
    if (result.ok) expect(result.stderr).toContain("not a git repository");
    execFileSync("git", ["init", "-q", fx.project]);
    expect(await exec({ command: "git status --short" })).toMatchObject({ ok: true, exitCode: 0, stdout: "?? notes.txt\n?? src/\n" });
  });

  it("says when an allowlisted program is not installed", async () => {
    const host = createFixture({ commands: [{ command: "surely-not-installed-tool" }] });
    onTestFinished(() => host.cleanup());
    const result = await exec({ command: "surely-not-installed-tool" }, host.host);
    expect(result).toMatchObject({ ok: false, error: { code: "ENOENT" } });
  });
});
