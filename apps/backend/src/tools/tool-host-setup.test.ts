import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicySchema, type Logger, type PermissionGate } from "@weft/types";
import { createToolHost } from "./tool-host-setup.ts";

const MASTER_KEY = "MASTER-KEY-OF-THE-DATA-FOLDER";

let dataDir: string;
let pkg: string;
beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), "weft-toolhost-setup-"));
  dataDir = join(base, "data");
  pkg = join(base, "pkg");
  mkdirSync(dataDir);
  // The server's layout: the master key beside the default project folder.
  writeFileSync(join(dataDir, "master.key"), MASTER_KEY);
});
afterEach(() => rmSync(join(dataDir, ".."), { recursive: true, force: true }));

const gate: PermissionGate = { request: async () => ({ answer: "reject" }) };

function capturingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => lines.push(message),
    error: (message) => lines.push(message),
    child: () => logger,
  };
  return logger;
}

function host(env: Record<string, string | undefined>, lines: string[] = []) {
  const created = createToolHost({ project: join(dataDir, "project"), pkg, dataDir }, PermissionPolicySchema.parse({}), gate, capturingLogger(lines), env);
  if (!created) throw new Error("the tool host did not start");
  return created;
}

describe("createToolHost", () => {
  it("runs commands in the sandbox, where a link out of @project/ leads nowhere near the master key", async () => {
    const tools = host({});
    symlinkSync(dataDir, join(dataDir, "project", "up"));
    const attack = await tools.call("shell.exec", { command: "grep -r --dereference-recursiv MASTER ." }, { runId: "r" });
    expect(attack).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
    expect(JSON.stringify(attack)).not.toContain(MASTER_KEY);
    // Inside the sandbox the command is "nobody": its files show that owner.
    writeFileSync(join(dataDir, "project", "a.txt"), "a\n");
    expect(await tools.call("shell.exec", { command: "ls -ln a.txt" }, { runId: "r" })).toMatchObject({ ok: true, stdout: expect.stringMatching(/^-\S+ 1 65534 65534 /) });
    const audit = readFileSync(join(dataDir, "audit", "tools.jsonl"), "utf8");
    expect(audit).toContain('"status":"started"');
    expect(audit).not.toContain(MASTER_KEY);
  });

  it("turns the sandbox off only for WEFT_SHELL_SANDBOX=off, with one warning at start", async () => {
    const lines: string[] = [];
    const tools = host({ WEFT_SHELL_SANDBOX: "off" }, lines);
    expect(lines).toEqual([expect.stringContaining("WITHOUT a sandbox")]);
    writeFileSync(join(dataDir, "project", "a.txt"), "a\n");
    const listed = await tools.call("shell.exec", { command: "ls -ln a.txt" }, { runId: "r" });
    expect(listed).toMatchObject({ ok: true, stdout: expect.stringMatching(new RegExp(`^-\\S+ 1 ${process.getuid?.()} `)) });
    expect(lines).toHaveLength(1);
  });

  it("keeps the sandbox for any other value, saying it did not understand it", () => {
    const lines: string[] = [];
    host({ WEFT_SHELL_SANDBOX: "no" }, lines);
    expect(lines).toEqual([expect.stringContaining('WEFT_SHELL_SANDBOX="no" is not understood')]);
  });
});
