import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditCompletedSchema, AuditLog, type AuditCompleted } from "./audit-log.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "weft-audit-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function record(i: number): AuditCompleted {
  return {
    status: "completed",
    ts: new Date(0).toISOString(),
    callId: `call-${i}`,
    tool: "fs.read",
    target: `@project/file-${i}.txt`,
    args: { path: `@project/file-${i}.txt` },
    result: { ok: true },
    durationMs: i,
    limits: [],
  };
}

function lines(file: string): AuditCompleted[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => AuditCompletedSchema.parse(JSON.parse(l)));
}

describe("AuditLog", () => {
  it("appends one JSON line per record, creating its folder", async () => {
    const log = new AuditLog({ file: join(dir, "nested/audit.jsonl") });
    await log.append(record(1));
    await log.append(record(2));
    expect(lines(join(dir, "nested/audit.jsonl")).map((r) => r.durationMs)).toEqual([1, 2]);
    expect(statSync(join(dir, "nested/audit.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("rotates by size and keeps only the newest files, in order", async () => {
    const file = join(dir, "audit.jsonl");
    const size = Buffer.byteLength(JSON.stringify(record(10)) + "\n");
    const log = new AuditLog({ file, maxBytes: size * 3, keep: 2 });
    // Appended concurrently, as parallel tool calls would.
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(record(10 + i))));
    expect(existsSync(`${file}.3`)).toBe(false);
    const current = lines(file).map((r) => r.durationMs);
    const one = lines(`${file}.1`).map((r) => r.durationMs);
    const two = lines(`${file}.2`).map((r) => r.durationMs);
    expect([...two, ...one, ...current]).toEqual(Array.from({ length: 8 }, (_, i) => 22 + i));
    for (const f of [file, `${file}.1`, `${file}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(size * 3);
  });

  it("continues an existing file and counts its size", async () => {
    const file = join(dir, "audit.jsonl");
    const size = Buffer.byteLength(JSON.stringify(record(10)) + "\n");
    await new AuditLog({ file }).append(record(10));
    const reopened = new AuditLog({ file, maxBytes: size * 2, keep: 1 });
    await reopened.append(record(11));
    await reopened.append(record(12));
    expect(lines(`${file}.1`).map((r) => r.durationMs)).toEqual([10, 11]);
    expect(lines(file).map((r) => r.durationMs)).toEqual([12]);
  });

  it("never throws at the caller when the file cannot be written", async () => {
    const log = new AuditLog({
      file: join("/proc/self/not-writable", "audit.jsonl"),
      logger: {
        debug() {},
        info() {},
        warn() {},
        error() {},
        child() {
          return this;
        },
      },
    });
    await expect(log.append(record(1))).resolves.toBeUndefined();
  });
});
