import { spawn } from "node:child_process";

export interface ProcessLimits {
  timeoutMs: number;
  /** Cap for stdout and for stderr, each. */
  maxOutputBytes: number;
}

export interface ProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Why the tool host ended the process group, if it did. */
  endedBy?: "timeout" | "output-limit" | "abort";
  durationMs: number;
}

/** How long to wait for output pipes to close after the process group was killed. */
const PIPE_GRACE_MS = 500;

class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  /** Keeps what fits under the cap; returns false once something had to be dropped. */
  push(chunk: Buffer): boolean {
    const room = this.cap - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.cap;
      this.truncated = true;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  value(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // A negative pid signals the whole process group: the command and everything it started.
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs a program directly (no shell) in its own process group, with the given folder and
 * environment. Output beyond the cap, the timeout or the abort signal kill the whole group; when
 * the program exits, whatever it left running in its group is killed too.
 */
export function runProcess(
  executable: string,
  argv: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    limits: ProcessLimits;
    signal?: AbortSignal;
    /** Descriptors the program gets as 3, 4, …; the caller still owns (and closes) its own. */
    extraFds?: readonly number[];
  },
): Promise<ProcessOutcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(executable, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      argv0: argv[0],
      detached: true,
      shell: false,
      stdio: ["ignore", "pipe", "pipe", ...(options.extraFds ?? [])],
      windowsHide: true,
    });
    const stdout = new CappedBuffer(options.limits.maxOutputBytes);
    const stderr = new CappedBuffer(options.limits.maxOutputBytes);
    let endedBy: ProcessOutcome["endedBy"];
    let exit: { code: number | null; signal: string | null } | undefined;
    let settled = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;

    const end = (reason: NonNullable<ProcessOutcome["endedBy"]>) => {
      // After the exit the group was already killed; later pipe data only sets the truncation flags.
      if (exit) return;
      endedBy ??= reason;
      killGroup(child.pid);
    };
    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.value(),
        stderr: stderr.value(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        ...(endedBy ? { endedBy } : {}),
        durationMs: Math.round(performance.now() - started),
      });
    };
    const onAbort = () => end("abort");
    const timer = setTimeout(() => end("timeout"), options.limits.timeoutMs);
    if (options.signal?.aborted) end("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout?.on("data", (chunk: Buffer) => {
      if (!stdout.push(chunk)) end("output-limit");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (!stderr.push(chunk)) end("output-limit");
    });
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid);
      // A process that escaped the group could hold the pipes open for ever: stop waiting after a grace period.
      graceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.on("close", (code, signal) => {
      exit ??= { code, signal };
      finish();
    });
  });
}
