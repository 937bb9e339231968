import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionAnswer, PermissionGate, PermissionRequest } from "@weft/types";
import { AuditLog, AuditRecordSchema, type AuditCompleted } from "./audit/audit-log.ts";
import { createFixture, type Fixture } from "./testing/fixture.ts";
import { ToolHost, withCallContext } from "./tool-host.ts";

/** A gate that answers from a script, the way a user would through the UI, and remembers what it was asked. */
class ScriptedGate implements PermissionGate {
  readonly asked: PermissionRequest[] = [];
  constructor(private readonly answers: PermissionAnswer[]) {}
  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    this.asked.push(request);
    const next = this.answers.shift();
    if (!next) throw new Error("the gate was asked more often than the test expected");
    return next;
  }
}

const fixtures: Fixture[] = [];
function fixture(...args: Parameters<typeof createFixture>): Fixture {
  const fx = createFixture(...args);
  fixtures.push(fx);
  return fx;
}
afterEach(() => {
  for (const fx of fixtures.splice(0)) fx.cleanup();
});

function allAuditRecords(fx: Fixture) {
  const file = join(fx.base, "audit/tools.jsonl");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => AuditRecordSchema.parse(JSON.parse(line)))
    : [];
}

/** The records that end calls, one per call. */
function auditRecords(fx: Fixture): AuditCompleted[] {
  return allAuditRecords(fx).filter((r): r is AuditCompleted => r.status === "completed");
}

describe("ToolHost.call", () => {
  it("names the nearest tool for an unknown one, and repairs case and node-type spellings", async () => {
    const fx = fixture();
    fx.put("project/a.txt", "a\n");
    const unknown = await fx.host.call("fs.raed", { path: "@project/a.txt" });
    expect(unknown).toMatchObject({ ok: false, error: { code: "E_UNKNOWN_TOOL", details: { suggestion: "fs.read" } } });
    if (!unknown.ok) expect(unknown.error.message).toContain('Did you mean "fs.read"?');
    expect(await fx.host.call("FS.Read", { path: "@project/a.txt" })).toMatchObject({ ok: true, content: "a\n" });
    expect(await fx.host.call("fs:apply-patch", { path: "@project/a.txt", patch: "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE" })).toMatchObject({ ok: true });
  });

  it("validates arguments with a message naming each problem", async () => {
    const fx = fixture();
    const result = await fx.host.call("fs.write", { path: 42, mode: "truncate" });
    expect(result).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
    if (!result.ok) {
      expect(result.error.message).toMatch(/^Invalid arguments for fs\.write: /);
      expect((result.error.details?.issues as Array<{ path: string }>).map((i) => i.path).sort()).toEqual(["content", "mode", "path"]);
    }
  });

  it("does not start a call whose signal is already aborted", async () => {
    const fx = fixture();
    const controller = new AbortController();
    controller.abort();
    expect(await fx.host.call("fs.list", {}, { signal: controller.signal })).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
  });
});

describe("permissions in ToolHost.call", () => {
  it("denies by rule with an error the model can read, and never runs the call", async () => {
    const fx = fixture({ permissions: { rules: [{ tool: "fs.write", target: "@project/**", action: "deny" }] } });
    const result = await fx.host.call("fs.write", { path: "@project/a.txt", content: "x" }, { runId: "r" });
    expect(result).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED", details: { tool: "fs.write", target: "@project/a.txt" } } });
    expect(existsSync(join(fx.project, "a.txt"))).toBe(false);
    expect(await fx.host.call("fs.write", { path: "@state/a.txt", content: "x" }, { runId: "r" })).toMatchObject({ ok: true });
  });

  it("asks the gate; `once` allows this call only", async () => {
    const gate = new ScriptedGate([{ answer: "once" }, { answer: "once" }]);
    const fx = fixture({ gate, permissions: { defaultAction: "ask" } });
    const ctx = { runId: "run-9", agentId: "writer" };
    expect(await fx.host.call("fs.write", { path: "@project/a.txt", content: "token=abc123secret" }, ctx)).toMatchObject({ ok: true });
    expect(gate.asked[0]).toMatchObject({ tool: "fs.write", target: "@project/a.txt", agentId: "writer", runId: "run-9" });
    // The request shows a summary, never the content itself.
    expect(JSON.stringify(gate.asked[0])).not.toContain("abc123secret");
    expect(await fx.host.call("fs.write", { path: "@project/a.txt", content: "y" }, ctx)).toMatchObject({ ok: true });
    expect(gate.asked).toHaveLength(2);
  });

  it("`always` allows the same tool and target for the rest of the session", async () => {
    const gate = new ScriptedGate([{ answer: "always" }, { answer: "reject" }]);
    const fx = fixture({ gate, permissions: { defaultAction: "ask" } });
    const ctx = { runId: "run-1", agentId: "a1" };
    fx.put("project/a.txt", "a");
    for (let i = 0; i < 3; i++) expect(await fx.host.call("fs.read", { path: "@project/a.txt" }, ctx)).toMatchObject({ ok: true });
    expect(gate.asked).toHaveLength(1);
    expect(fx.host.sessionRulesOf("run-1")).toEqual([{ action: "allow", tool: "fs.read", target: "@project/a.txt", agent: "a1" }]);
    // Another target, or another session, is asked again.
    expect(await fx.host.call("fs.read", { path: "@project/b.txt" }, ctx)).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(gate.asked).toHaveLength(2);
  });

  it("turns `reject` into a result carrying the user's feedback", async () => {
    const gate = new ScriptedGate([{ answer: "reject", feedback: "Write to @state/ instead." }]);
    const fx = fixture({ gate, permissions: { rules: [{ tool: "fs.write", action: "ask" }] } });
    const result = await fx.host.call("fs.write", { path: "@project/a.txt", content: "x" }, { runId: "r" });
    expect(result).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED", details: { feedback: "Write to @state/ instead." } } });
    if (!result.ok) expect(result.error.message).toBe("The user rejected fs.write on @project/a.txt. Their feedback: Write to @state/ instead.");
    expect(existsSync(join(fx.project, "a.txt"))).toBe(false);
  });

  it("refuses `ask` calls when there is nobody to ask, and treats a malformed answer as a refusal", async () => {
    const fx = fixture({ permissions: { defaultAction: "ask" } });
    const result = await fx.host.call("fs.list", {}, { runId: "r" });
    expect(result).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    if (!result.ok) expect(result.error.message).toContain("nobody can be asked");
    const odd = fixture({ permissions: { defaultAction: "ask" }, gate: { request: async () => ({ answer: "maybe" }) as unknown as PermissionAnswer } });
    expect(await odd.host.call("fs.list", {}, { runId: "r" })).toMatchObject({ ok: false, error: { code: "E_INTERNAL" } });
  });

  it("refuses a path before asking anyone about it", async () => {
    const gate = new ScriptedGate([]);
    const fx = fixture({ gate, permissions: { defaultAction: "ask" } });
    expect(await fx.host.call("fs.read", { path: "@project/../x" }, { runId: "r" })).toMatchObject({ ok: false, error: { code: "E_SANDBOX_VIOLATION" } });
    expect(await fx.host.call("shell.exec", { command: "rm -rf ." }, { runId: "r" })).toMatchObject({ ok: false, error: { code: "E_COMMAND_NOT_ALLOWED" } });
    expect(gate.asked).toEqual([]);
  });

  it("gives up waiting for an answer when the call is cancelled", async () => {
    const gate: PermissionGate = {
      request: (_request, options) => new Promise((_resolve, reject) => options?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true })),
    };
    const fx = fixture({ gate, permissions: { defaultAction: "ask" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await fx.host.call("fs.list", {}, { runId: "r", signal: controller.signal })).toMatchObject({ ok: false, error: { code: "E_ABORTED" } });
  });

  it("applies agent-scoped rules through a host bound to the agent", async () => {
    const fx = fixture({ permissions: { rules: [{ tool: "shell.*", agent: "guest-*", action: "deny" }] } });
    const guest = withCallContext(fx.host, { agentId: "guest-1", runId: "r" });
    const admin = withCallContext(fx.host, { agentId: "admin", runId: "r" });
    expect(await guest.call("shell.exec", { command: "pwd" })).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(await admin.call("shell.exec", { command: "pwd" })).toMatchObject({ ok: true });
  });
});

describe("the audit trail of ToolHost.call", () => {
  it("refuses an audit file that tools could see", () => {
    const fx = fixture();
    const inProject = () => new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, audit: new AuditLog({ file: join(fx.project, "logs/audit.jsonl") }) });
    expect(inProject).toThrow(/inside the @project\/ mount/);
    const inRun = () => new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, audit: new AuditLog({ file: join(fx.state, "run-1/audit.jsonl") }) });
    expect(inRun).toThrow(/inside the @state\/ mount/);
    expect(new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: fx.state }, audit: new AuditLog({ file: join(fx.state, "audit.jsonl") }) })).toBeInstanceOf(ToolHost);
  });

  it("appends one record per call with permission decisions and limits, never file content or secrets", async () => {
    const gate = new ScriptedGate([{ answer: "once" }]);
    const base = fixture();
    const fx = fixture({
      gate,
      permissions: {
        rules: [
          { tool: "shell.exec", action: "ask" },
          { tool: "fs.read", target: "@project/private/**", action: "deny" },
        ],
      },
      limits: { maxReadBytes: 10 },
      audit: new AuditLog({ file: join(base.base, "audit/tools.jsonl") }),
    });
    fx.put("project/a.txt", "0123456789abcdef\n");
    await fx.host.call("fs.read", { path: "@project/a.txt" }, { runId: "run-1", agentId: "ann" });
    await fx.host.call("fs.write", { path: "@project/key.txt", content: "OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234" }, { runId: "run-1" });
    await fx.host.call("fs.read", { path: "@project/private/x" }, { runId: "run-1" });
    await fx.host.call("shell.exec", { command: "grep --api-key=hunter2hunter2 -c x a.txt" }, { runId: "run-1" });
    await fx.host.call("nope", {}, {});
    const records = auditRecords(base);
    expect(records.map((r) => r.tool)).toEqual(["fs.read", "fs.write", "fs.read", "shell.exec", "nope"]);
    expect(records[0]).toMatchObject({
      runId: "run-1",
      agentId: "ann",
      target: "@project/a.txt",
      permission: { decision: "allow", source: "default" },
      limits: ["truncated"],
      result: { ok: true, truncated: true, bytes: 17 },
    });
    expect(records[1].args).toMatchObject({ path: "@project/key.txt", content: { bytes: Buffer.byteLength("OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234") } });
    expect(records[2]).toMatchObject({ permission: { decision: "deny", source: "rule 2" }, result: { ok: false, code: "E_PERMISSION_DENIED" } });
    expect(records[3]).toMatchObject({ permission: { decision: "ask", source: "rule 1", answer: "once" }, target: "grep --api-key=[REDACTED] -c x a.txt" });
    expect(records[3].args.command).toBe("grep --api-key=[REDACTED] -c x a.txt");
    expect(records[4].result).toMatchObject({ ok: false, code: "E_UNKNOWN_TOOL" });
    for (const r of records) expect(r.durationMs).toBeGreaterThanOrEqual(0);
    const text = readFileSync(join(base.base, "audit/tools.jsonl"), "utf8");
    expect(text).not.toContain("sk-proj-abcdefghijklmnop1234");
    expect(text).not.toContain("0123456789");
    expect(text).not.toContain("hunter2");
  });
});
