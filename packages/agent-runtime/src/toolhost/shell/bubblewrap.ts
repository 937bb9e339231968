import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { runProcess, type ProcessLimits, type ProcessOutcome } from "./run-process.ts";
import { FILTER_ARCHITECTURES, setuidFilterProgram } from "./seccomp-filter.ts";

/** How shell commands are isolated: inside bubblewrap, not at all (opted out), or not at all possible here. */
export type ShellSandbox = { kind: "bwrap"; bwrap: string; network: boolean } | { kind: "off" } | { kind: "unavailable"; reason: string };

/** What a command sees, as real paths; each appears inside the sandbox at the same path as outside. */
export interface SandboxLayout {
  mounts: ReadonlyArray<{ real: string; writable: boolean }>;
  /** Taken away by the permission rules: a folder shows as an empty one, a file as an empty file. */
  hidden: ReadonlyArray<{ real: string; folder: boolean }>;
  /** Folders inside writable mounts that the rules keep from being written. */
  readOnly: readonly string[];
  cwd: string;
  network: boolean;
}

/** Commands run as "nobody" inside their user namespace; outside, the kernel sees Weft's own user (without any capability), so what they write in @project/ stays Weft's. */
const SANDBOX_ID = "65534";
/** The command's HOME: the fresh, empty /tmp of its sandbox. */
export const SANDBOX_HOME = "/tmp";
const TMP_BYTES = 64 * 1024 * 1024;

/** Where programs and their libraries live; on merged-/usr systems the top-level ones are links into /usr. */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** The parts of /etc programs need to load libraries and name users; never /etc/shadow or the rest. */
const SYSTEM_FILES = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime"];
const NETWORK_FILES = ["/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/ssl", "/etc/ca-certificates"];

export const SANDBOX_HELP =
  "Install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces (`sysctl -w kernel.unprivileged_userns_clone=1`, and on Ubuntu `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), then restart Weft; or start Weft with WEFT_SHELL_SANDBOX=off to run commands without isolation (they can then read everything Weft's user can).";

function systemFolders(out: string[]): void {
  for (const path of SYSTEM_FOLDERS) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) out.push("--symlink", fs.readlinkSync(path), path);
    else if (stat.isDirectory()) out.push("--ro-bind", path, path);
  }
}

/** The descriptor bubblewrap reads the seccomp filter from: the first after stdin, stdout and stderr, given by `openSetuidFilter`. */
export const SECCOMP_FD = 3;

/**
 * The options that build the sandbox, up to (not including) `--` and the command. bubblewrap reads
 * the setuid filter (see `seccomp-filter.ts`) from descriptor SECCOMP_FD.
 */
export function bubblewrapArguments(layout: SandboxLayout): string[] {
  const out: string[] = [];
  systemFolders(out);
  for (const file of [...SYSTEM_FILES, ...(layout.network ? NETWORK_FILES : [])]) out.push("--ro-bind-try", file, file);
  out.push("--size", String(TMP_BYTES), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev");
  // After the fresh /tmp, so mounts below /tmp land on it.
  for (const mount of layout.mounts) out.push(mount.writable ? "--bind" : "--ro-bind", mount.real, mount.real);
  for (const folder of layout.readOnly) out.push("--ro-bind", folder, folder);
  for (const entry of layout.hidden) out.push(...(entry.folder ? ["--tmpfs", entry.real] : ["--ro-bind", "/dev/null", entry.real]));
  out.push("--unshare-all", "--unshare-user", ...(layout.network ? ["--share-net"] : []));
  // --new-session: no TIOCSTI keystrokes into a terminal Weft was started from; --die-with-parent: gone with Weft.
  out.push("--uid", SANDBOX_ID, "--gid", SANDBOX_ID, "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--chdir", layout.cwd);
  // bubblewrap's mounts are nosuid, which only holds inside: the filter keeps a setuid bit off the host's files.
  out.push("--seccomp", String(SECCOMP_FD));
  return out;
}

/** The filter, in a file of its own that no longer has a name; opened again for each sandbox. */
let sealedFilter: number | undefined;

function sealFilter(): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "weft-seccomp-"));
  try {
    const file = path.join(dir, "setuid.bpf");
    fs.writeFileSync(file, setuidFilterProgram(), { mode: 0o400, flag: "wx" });
    return fs.openSync(file, "r");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh read descriptor on the setuid filter, to hand to bubblewrap as SECCOMP_FD; the caller
 * closes it once the sandbox has started. Fresh each time because bubblewrap reads it to its end: a
 * shared descriptor would share its position with sandboxes starting at the same moment.
 */
export function openSetuidFilter(): number {
  sealedFilter ??= sealFilter();
  return fs.openSync(`/proc/self/fd/${sealedFilter}`, "r");
}

/** Runs `command` (found on the PATH of `env`, inside) in the sandbox `layout` describes, under the setuid filter. */
export async function runInSandbox(
  bwrap: string,
  layout: SandboxLayout,
  command: readonly string[],
  options: { env: Record<string, string>; limits: ProcessLimits; signal?: AbortSignal },
): Promise<ProcessOutcome> {
  const filter = openSetuidFilter();
  try {
    return await runProcess(bwrap, ["bwrap", ...bubblewrapArguments(layout), "--", ...command], { ...options, cwd: "/", extraFds: [filter] });
  } finally {
    fs.closeSync(filter);
  }
}

let probed: ShellSandbox | undefined;

/**
 * Whether bubblewrap can build a sandbox here, found out once per process by starting one: it may be
 * missing, or the kernel may refuse user namespaces.
 */
export function probeBubblewrap(network: boolean): ShellSandbox {
  probed ??= runProbe();
  return probed.kind === "bwrap" ? { ...probed, network } : probed;
}

function runProbe(): ShellSandbox {
  const bwrap = Bun.which("bwrap", { PATH: "/usr/bin:/bin:/usr/local/bin:/usr/sbin:/sbin" });
  if (!bwrap) return { kind: "unavailable", reason: "bubblewrap (bwrap) is not installed" };
  if (!FILTER_ARCHITECTURES.has(process.arch)) {
    return { kind: "unavailable", reason: `the sandbox's setuid filter knows the system calls of x86_64 and aarch64 only, and this machine is ${process.arch}` };
  }
  const args = bubblewrapArguments({ mounts: [], hidden: [], readOnly: [], cwd: "/", network: false });
  const filter = openSetuidFilter();
  let probe: SpawnSyncReturns<string>;
  try {
    probe = spawnSync(bwrap, [...args, "--", "true"], { env: { PATH: "/usr/bin:/bin" }, encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "pipe", filter] });
  } finally {
    fs.closeSync(filter);
  }
  if (probe.status === 0) return { kind: "bwrap", bwrap, network: false };
  const why = probe.error?.message ?? (probe.stderr.trim() || `exit code ${String(probe.status)}`);
  return { kind: "unavailable", reason: `bubblewrap could not start a sandbox (${why})` };
}

/** The PATH entries a sandboxed command can use: only the system folders are inside. */
export function sandboxPath(path: string): string {
  const visible = path.split(":").filter((dir) => SYSTEM_FOLDERS.some((top) => dir === top || dir.startsWith(top + "/")));
  return visible.length > 0 ? visible.join(":") : "/usr/bin:/bin";
}

/** Seconds a sandbox may outlive the call's own time limit before `timeout` ends it from inside. */
const BACKSTOP_GRACE_SECONDS = 2;

/**
 * The command as the sandbox runs it: under coreutils' `timeout`, when the system has it. The tool
 * host kills a command at its time limit itself; this is the backstop for when the tool host is
 * killed while bubblewrap is still setting up, a moment in which `--die-with-parent` does not hold
 * yet (seen here: the sandbox then runs on, orphaned).
 */
export function sandboxCommand(argv: readonly string[], timeoutMs: number, path: string): string[] {
  if (!Bun.which("timeout", { PATH: path })) return [...argv];
  return ["timeout", "--signal=KILL", `${Math.ceil(timeoutMs / 1000) + BACKSTOP_GRACE_SECONDS}s`, ...argv];
}
