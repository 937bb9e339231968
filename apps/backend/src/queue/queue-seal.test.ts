import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { silentLogger } from "@weft/types";
import { canonicalJson, deriveQueueKey, MESSAGE_MAX_AGE_MS, openJob, QueueSeal, RejectedJobError, sealJob } from "./queue-seal.ts";

const key = deriveQueueKey(randomBytes(32));
const Job = z.object({ conversationId: z.string(), createdBy: z.string() });
const policy = { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true };

describe("QueueSeal", () => {
  it("opens what it sealed, once; refuses a replay, another purpose, an altered body, another key, an unsealed or old message, and counts each", () => {
    let now = 1_000_000;
    const seal = new QueueSeal(key, silentLogger, () => now);
    const text = seal.wrap("weft:cancel", "run-1");
    expect(seal.unwrap("weft:cancel", text, z.string(), "a cancel", policy)).toBe("run-1");
    expect(seal.unwrap("weft:cancel", text, z.string(), "a cancel", policy)).toBeUndefined();
    expect(seal.unwrap("weft:settings", seal.wrap("weft:cancel", "run-2"), z.string(), "a cancel", policy)).toBeUndefined();
    const altered = JSON.stringify({ ...z.object({ body: z.string(), seal: z.unknown() }).parse(JSON.parse(seal.wrap("weft:cancel", "run-3"))), body: '"run-4"' });
    expect(seal.unwrap("weft:cancel", altered, z.string(), "a cancel", policy)).toBeUndefined();
    expect(seal.unwrap("weft:cancel", new QueueSeal(deriveQueueKey(randomBytes(32)), silentLogger).wrap("weft:cancel", "run-5"), z.string(), "a cancel", policy)).toBeUndefined();
    expect(seal.unwrap("weft:cancel", "run-6", z.string(), "a cancel", policy)).toBeUndefined();
    const old = seal.wrap("weft:cancel", "run-7");
    now += MESSAGE_MAX_AGE_MS + 1;
    expect(seal.unwrap("weft:cancel", old, z.string(), "a cancel", policy)).toBeUndefined();
    expect(seal.unwrap("weft:cancel", seal.wrap("weft:cancel", 7), z.string(), "a cancel", policy)).toBeUndefined();
    expect(Object.fromEntries(seal.rejected())).toEqual({ unsigned: 1, bad_signature: 3, stale: 1, replayed: 1, malformed: 1 });
  });

  it("keeps a seal id through a generation turn: a replay just after the turn is still refused", () => {
    let now = 0;
    const seal = new QueueSeal(key, silentLogger, () => now);
    now = MESSAGE_MAX_AGE_MS / 2;
    const text = seal.wrap("c", "x");
    expect(seal.unwrap("c", text, z.string(), "m", policy)).toBe("x");
    now = MESSAGE_MAX_AGE_MS + 1;
    expect(seal.unwrap("c", text, z.string(), "m", policy)).toBeUndefined();
    expect(seal.rejected().get("replayed")).toBe(1);
  });

  it("opens a sealed job whatever the order of its keys, only under its own queue and id, and with the principal it was sealed with", () => {
    const seal = new QueueSeal(key, silentLogger);
    const sealed = sealJob(seal, "agents", "job-1", { conversationId: "c1", createdBy: "owner" });
    const reordered = { seal: sealed.seal, createdBy: "owner", conversationId: "c1" };
    expect(openJob(seal, "agents", { id: "job-1", data: reordered }, Job, "a job")).toEqual({ conversationId: "c1", createdBy: "owner" });
    expect(() => openJob(seal, "agents", { id: "job-2", data: sealed }, Job, "a job")).toThrow(RejectedJobError);
    expect(() => openJob(seal, "runs", { id: "job-1", data: sealed }, Job, "a job")).toThrow(RejectedJobError);
    expect(() => openJob(seal, "agents", { id: "job-1", data: { ...sealed, createdBy: "viewer" } }, Job, "a job")).toThrow(RejectedJobError);
    expect(() => openJob(seal, "agents", { id: "job-1", data: { conversationId: "c1", createdBy: "viewer" } }, Job, "a job")).toThrow(RejectedJobError);
    expect(Object.fromEntries(seal.rejected())).toMatchObject({ bad_signature: 3, unsigned: 1 });
    expect(canonicalJson({ b: [1, { d: undefined, c: "x" }], a: null })).toBe('{"a":null,"b":[1,{"c":"x"}]}');
  });
});
