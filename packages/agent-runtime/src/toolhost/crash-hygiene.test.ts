import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@weft/types";
import { AuditLog, AuditRecordSchema, type AuditRecord } from "./audit/audit-log.ts";
import { createFixture, type Fixture } from "./testing/fixture.ts";
import { processesMatching, uniqueSeconds, untilProcesses } from "./testing/processes.ts";
import { ToolHost } from "./tool-host.ts";

const HOST_PROCESS = fileURLToPath(new URL("./testing/host-process.ts", import.meta.url));

let fx: Fixture;
let auditFile: string;
beforeEach(() => {
  fx = createFixture();
  auditFile = join(fx.base, "audit/tools.jsonl");
});
afterEach(() => fx.cleanup());

function records(): AuditRecord[] {
  if (!existsSync(auditFile)) return [];
  return readFileSync(auditFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => AuditRecordSchema.parse(JSON.parse(line)));
}

/** Generous: on a busy machine a sandbox starts when the CPU gets to it. */
async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("a server killed during a command (kill -9)", () => {
  it("leaves no process of the command behind, and the next start records the call as interrupted", async () => {
    const seconds = uniqueSeconds();
    const spec = {
      mounts: { project: fx.project, pkg: fx.pkg, state: fx.state },
      auditFile,
      commands: [{ command: "sleep" }],
      call: { command: `sleep ${seconds}`, timeoutMs: 60_000 },
    };
    const child = spawn(process.execPath, [HOST_PROCESS, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      // bubblewrap twice, the backstop `timeout`, and sleep itself.
      await until("the command to run", () => processesMatching(`sleep ${seconds}`).length >= 4 && records().some((r) => r.status === "started"));
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // bubblewrap's --die-with-parent ends the sandbox once its parent is gone.
    await untilProcesses(`sleep ${seconds}`, "the command's processes to end", (pids) => pids.length === 0);

    const [started] = records();
    expect(started).toMatchObject({ status: "started", tool: "shell.exec", runId: "child-run", target: `sleep ${seconds}` });
    expect(records()).toHaveLength(1);

    const audit = new AuditLog({ file: auditFile });
    const host = new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, audit, logger: silentLogger });
    // The next call's records queue behind the recovery.
    await host.call("fs.list", {}, { runId: "next" });
    const after = records();
    expect(after.map((r) => r.status)).toEqual(["started", "interrupted", "started", "completed"]);
    expect(after[1]).toMatchObject({ status: "interrupted", callId: started.callId, tool: "shell.exec", runId: "child-run", startedAt: started.ts });
    // Recovering again finds nothing open.
    expect(await new AuditLog({ file: auditFile }).recoverInterrupted()).toEqual([]);
  });
});

describe("ToolHost.close", () => {
  it("stops running commands with everything they started, records their end, and refuses new calls", async () => {
    const host = new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, commands: [{ command: "sh" }], audit: new AuditLog({ file: auditFile }) });
    const seconds = uniqueSeconds();
    const running = host.call("shell.exec", { command: "sh", args: ["-c", `sleep ${seconds} & sleep ${seconds}; wait`], timeoutMs: 30_000 }, { runId: "r" });
    await until("the command to run", () => processesMatching(`sleep ${seconds}`).length >= 5);
    await host.close();
    expect(await running).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
    // A killed process ends when the CPU gets to it: awaited, not slept for.
    await untilProcesses(`sleep ${seconds}`, "the command's processes to end", (pids) => pids.length === 0);
    expect(records().map((r) => r.status)).toEqual(["started", "completed"]);
    expect(await host.call("fs.list", {}, { runId: "r" })).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
  });
});
