import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type ToolResult } from "@weft/types";
import { SECRET, createFixture, resultText, type Fixture } from "./testing/fixture.ts";

/** The attacks seen against shell.exec (issue #15), each checked by its effect: a file not made, a secret not shown. */

const fixtures: Fixture[] = [];
function fixture(...args: Parameters<typeof createFixture>): Fixture {
  const fx = createFixture(...args);
  fixtures.push(fx);
  return fx;
}
let fx: Fixture;
beforeEach(() => {
  fx = fixture();
  fx.put("project/notes.txt", "alpha TODO\n");
});
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const exec = (host: Fixture, args: Record<string, unknown>) => host.host.call("shell.exec", args, { runId: "r" });

function expectNoSecret(result: ToolResult): void {
  expect(resultText(result)).not.toContain(SECRET);
}

describe("the allowlist", () => {
  it("checks options after `--`: find runs nothing through -exec", async () => {
    const result = await exec(fx, { command: "find -- . -exec sh -c 'touch pwned' \\;" });
    expect(result).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
    expect(existsSync(join(fx.project, "pwned"))).toBe(false);
  });

  it("refuses GNU abbreviations of denied options: grep does not follow a link out of @project/", async () => {
    symlinkSync(fx.outside, join(fx.project, "data"));
    for (const command of ["grep -r --dereference-recursiv TOP-SECRET .", "grep -r --deref TOP-SECRET ."]) {
      const result = await exec(fx, { command });
      expect(result, command).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
      expectNoSecret(result);
    }
  });

  it("refuses wc's --files0-from however it is abbreviated, so names inside a file are never read", async () => {
    fx.put("project/list", `${join(fx.outside, "secret.txt")}\u0000`);
    for (const command of ["wc --files0-fro=list", "wc --f=list", "wc --files0-from list"]) {
      const result = await exec(fx, { command });
      expect(result, command).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
      expect(resultText(result)).not.toContain(fx.outside);
    }
  });
});

describe("git", () => {
  it("never runs core.fsmonitor from a bare-repository layout written with fs.write, under a policy allowing only that", async () => {
    const host = fixture({
      permissions: {
        defaultAction: "deny",
        rules: [
          { action: "allow", tool: "fs.write" },
          { action: "allow", tool: "shell.exec", target: "git status" },
        ],
      },
    });
    const canary = join(host.project, "PWNED");
    const write = (path: string, content: string) => host.host.call("fs.write", { path, content }, { runId: "r" });
    for (const [path, content] of [
      ["@project/x/HEAD", "ref: refs/heads/main\n"],
      ["@project/x/config", `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${join(host.project, "x/w")}\n\tfsmonitor = "touch ${canary}; false"\n`],
      ["@project/x/objects/.keep", ""],
      ["@project/x/refs/heads/.keep", ""],
      ["@project/x/w/.keep", ""],
    ]) {
      expect(await write(path, content), path).toMatchObject({ ok: true });
    }
    for (const cwd of ["@project/x", "@project/x/w", "@project/x/objects"]) {
      const result = await exec(host, { command: "git status", cwd });
      expect(result, cwd).toMatchObject({ ok: true });
      expect(existsSync(canary), cwd).toBe(false);
    }
  });

  it("runs no external diff driver configured in a repository", async () => {
    const repo = fx.project;
    const git = (...args: string[]) => spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" });
    git("init", "-q");
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "a");
    writeFileSync(join(repo, "tracked.txt"), "one\n");
    git("add", "tracked.txt");
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "b");
    writeFileSync(join(repo, "tracked.txt"), "two\n");
    git("config", "diff.external", `sh -c 'touch ${join(repo, "PWNED")}'`);
    const result = await exec(fx, { command: "git diff" });
    expect(result).toMatchObject({ ok: true, exitCode: 0 });
    if (result.ok) expect(result.stdout).toContain("+two");
    expect(existsSync(join(repo, "PWNED"))).toBe(false);
  });
});

describe("the bubblewrap sandbox", () => {
  it("shows a command only the mounts: nothing outside, no /etc/shadow, no other run's @state/", async () => {
    const host = fixture({ commands: [{ command: "sh" }] });
    host.put("state/other-run/private.txt", SECRET);
    const script = `cat ${join(host.outside, "secret.txt")}; cat /etc/shadow; ls ${host.outside}; cat ${join(host.state, "other-run/private.txt")}; ls /root; echo done`;
    const result = await exec(host, { command: "sh", args: ["-c", script] });
    expect(result).toMatchObject({ ok: true, stdout: "done\n" });
    expectNoSecret(result);
    if (result.ok) expect(result.stderr).toMatch(/No such file/);
  });

  it("keeps programs that read names from a file inside the mounts (sort --files0-from, allowed on purpose here)", async () => {
    const host = fixture({ commands: [{ command: "sort" }] });
    host.put("project/list", `${join(host.outside, "secret.txt")}\u0000`);
    const result = await exec(host, { command: "sort --files0-from=list" });
    expectNoSecret(result);
  });

  it("keeps a followed link inside the sandbox (grep -R allowed on purpose here)", async () => {
    const host = fixture({ commands: [{ command: "grep" }] });
    symlinkSync(host.outside, join(host.project, "data"));
    const result = await exec(host, { command: "grep -R TOP-SECRET ." });
    expect(result).toMatchObject({ ok: true });
    expectNoSecret(result);
  });

  it("writes nothing outside the mounts, @pkg/ stays read-only, and what it writes in @project/ belongs to Weft's user", async () => {
    const host = fixture({ commands: [{ command: "sh" }, { command: "id" }] });
    host.put("pkg/readme.md", "package\n");
    const outsideFile = join(host.outside, "written.txt");
    const result = await exec(host, { command: "sh", args: ["-c", `echo x > ${outsideFile}; echo x > ${join(host.pkg, "readme.md")}; echo made > made.txt`] });
    expect(result).toMatchObject({ ok: true });
    expect(existsSync(outsideFile)).toBe(false);
    expect(readFileSync(join(host.pkg, "readme.md"), "utf8")).toBe("package\n");
    expect(readFileSync(join(host.project, "made.txt"), "utf8")).toBe("made\n");
    expect(statSync(join(host.project, "made.txt")).uid).toBe(process.getuid?.());
    // Inside, the command is "nobody", without any capability.
    expect(await exec(host, { command: "id -u" })).toMatchObject({ ok: true, stdout: "65534\n" });
  });

  it("has no network unless the tool host grants it", async () => {
    const interfacesSeen = async (shellNetwork: boolean) => {
      const host = fixture({ commands: [{ command: "sh" }], shellNetwork });
      const result = await exec(host, { command: "sh", args: ["-c", "cat /proc/net/dev"] });
      expect(result).toMatchObject({ ok: true });
      return interfaceNames(result.ok ? (result.stdout as string) : "");
    };
    expect(await interfacesSeen(false)).toEqual(["lo"]);
    expect(await interfacesSeen(true)).toEqual(interfaceNames(readFileSync("/proc/net/dev", "utf8")));
  });
});

function interfaceNames(procNetDev: string): string[] {
  return procNetDev
    .split("\n")
    .slice(2)
    .filter(Boolean)
    .map((line) => line.split(":")[0].trim())
    .sort();
}

const HOST_PROCESS = fileURLToPath(new URL("./testing/host-process.ts", import.meta.url));

describe("where bubblewrap cannot run", () => {
  it("shell.exec refuses with how to enable it; WEFT_SHELL_SANDBOX=off runs commands unisolated", () => {
    const spec = (shellSandbox: "bwrap" | "off") =>
      JSON.stringify({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, commands: [{ command: "cat" }], shellSandbox, call: { command: "cat notes.txt" } });
    // A user namespace where no further namespaces may be made: bubblewrap fails there as on a kernel that forbids them.
    const run = (mode: "bwrap" | "off") =>
      spawnSync("unshare", ["--user", "--map-root-user", "sh", "-c", 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@"', process.execPath, HOST_PROCESS, spec(mode)], {
        encoding: "utf8",
        env: { ...process.env, WEFT_LOG_LEVEL: "error" },
      });
    const refused = run("bwrap");
    expect(refused.status, refused.stderr).toBe(0);
    const result = JSON.parse(refused.stdout) as ToolResult;
    expect(result).toMatchObject({ ok: false, error: { code: "E_SANDBOX_UNAVAILABLE" } });
    if (!result.ok) {
      expect(result.error.message).toContain("apt-get install bubblewrap");
      expect(result.error.message).toContain("WEFT_SHELL_SANDBOX=off");
    }
    const off = run("off");
    expect(JSON.parse(off.stdout)).toMatchObject({ ok: true, stdout: "alpha TODO\n" });
  });

  it("warns once, at start, when the sandbox is switched off", () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message), child: () => logger };
    fixture({ shellSandbox: "off", logger });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("WITHOUT a sandbox");
  });
});
