import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeBubblewrap, runInSandbox, sandboxPath } from "./shell/bubblewrap.ts";
import { createFixture, type Fixture } from "./testing/fixture.ts";

/**
 * Issue 31, attack 6: inside bubblewrap a command could `chmod 4755` a file in @project/, which then
 * stays `-rwsr-xr-x` on the host, owned by Weft's user (root here). Each test tries it directly, with
 * programs the allowlist never lets through, and looks at the host's files afterwards.
 */

const SETUID_SETGID = 0o6000;

/** Every way of setting the bits the tools in /usr offer: chmod(1) in all spellings, install, cp -p of a setuid program, mkdir -m, and Python's raw calls. */
const ATTEMPTS = String.raw`
touch plain sgid-file; mkdir sgid-dir
chmod 4755 plain; chmod u+s plain; chmod g+s sgid-file; chmod 2755 sgid-dir; chmod 6777 plain
install -m 4755 plain installed
mkdir -m 2755 made-sgid
for p in /usr/bin/passwd /usr/bin/su /usr/bin/mount; do [ -u "$p" ] && cp -p "$p" copied && break; done
command -v python3 >/dev/null && python3 - <<'PY'
import ctypes, os, stat
libc = ctypes.CDLL(None, use_errno=True)
def attempt(what, call):
    try:
        call()
    except OSError:
        pass
attempt("open O_CREAT 04755", lambda: os.close(os.open("py-open", os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("chmod", lambda: os.chmod("plain", 0o4755))
fd = os.open("plain", os.O_RDONLY)
attempt("fchmod", lambda: os.fchmod(fd, 0o2755))
attempt("mknod", lambda: os.mknod("py-node", stat.S_IFREG | 0o4755))
attempt("mkdir", lambda: os.mkdir("py-dir", 0o2755))
# fchmodat2 (452) and openat2 (437) straight through syscall(2): glibc may not wrap them.
libc.syscall(452, -100, b"plain", 0o4755, 0)
how = (ctypes.c_uint64 * 3)(os.O_CREAT | os.O_WRONLY, 0o4755, 0)
libc.syscall(437, -100, b"py-openat2", ctypes.byref(how), 24)
PY
true
`;

function setuidFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => (statSync(join(dir, name)).mode & SETUID_SETGID) !== 0);
}

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ commands: [{ command: "sh" }] });
});
afterEach(() => fx.cleanup());

function sandbox() {
  const found = probeBubblewrap(false);
  if (found.kind !== "bwrap") throw new Error(`bubblewrap is needed for this test: ${found.kind === "unavailable" ? found.reason : "off"}`);
  return found;
}

async function runDirectly(script: string) {
  const layout = { mounts: [{ real: fx.project, writable: true }], hidden: [], readOnly: [], cwd: fx.project, network: false };
  return runInSandbox(sandbox().bwrap, layout, ["sh", "-c", script], {
    env: { PATH: sandboxPath("/usr/bin:/bin"), HOME: "/tmp" },
    limits: { timeoutMs: 60_000, maxOutputBytes: 1 << 20 },
  });
}

describe("the sandbox never leaves a setuid or setgid file on the host", () => {
  it("refuses every attempt made directly inside bubblewrap; the files are there, without the bits", async () => {
    const outcome = await runDirectly(ATTEMPTS);
    expect(outcome.exitCode, outcome.stderr.toString()).toBe(0);
    expect(readdirSync(fx.project)).toEqual(expect.arrayContaining(["plain", "sgid-file", "sgid-dir", "installed"]));
    expect(setuidFiles(fx.project)).toEqual([]);
  });

  it("refuses them through shell.exec too, when the owner's allowlist lets `sh` run a script", async () => {
    fx.put("project/attempts.sh", ATTEMPTS);
    const result = await fx.host.call("shell.exec", { command: "sh attempts.sh" }, { runId: "r" });
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, exitCode: 0 });
    expect(readdirSync(fx.project)).toEqual(expect.arrayContaining(["plain", "sgid-file"]));
    expect(setuidFiles(fx.project)).toEqual([]);
  });

  it("keeps ordinary modes working: 0755, 0644, 0700, sticky, and files created with a mode", async () => {
    const outcome = await runDirectly(String.raw`
touch run.sh data; mkdir shared
chmod 0755 run.sh; chmod 0644 data; chmod 1777 shared
install -m 0700 data private
mkdir -m 0750 made
`);
    expect(outcome.exitCode, outcome.stderr.toString()).toBe(0);
    const mode = (name: string) => statSync(join(fx.project, name)).mode & 0o7777;
    expect({ run: mode("run.sh"), data: mode("data"), shared: mode("shared"), private: mode("private"), made: mode("made") }).toEqual({
      run: 0o755,
      data: 0o644,
      shared: 0o1777,
      private: 0o700,
      made: 0o750,
    });
  });

  it("hands the filter's descriptor to bubblewrap only: the command does not inherit it", async () => {
    const outcome = await runDirectly("ls -l /proc/self/fd/");
    expect(outcome.exitCode, outcome.stderr.toString()).toBe(0);
    expect(outcome.stdout.toString()).toContain("/proc/");
    expect(outcome.stdout.toString()).not.toContain("setuid.bpf");
  });
});
