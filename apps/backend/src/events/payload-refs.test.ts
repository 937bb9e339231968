import { afterEach, describe, expect, it } from "vitest";
import { SecretRedactor, silentLogger, WorkflowSchema, type Observation, type RunEvent } from "@weft/types";
import { openSqliteStorage, type Storage } from "../storage/storage.ts";
import { requireSqlite } from "../storage/sql-handle.ts";
import { tempDir } from "../testing/test-server.ts";
import { EventHub } from "./event-hub.ts";
import { EventJournal } from "./event-journal.ts";
import { withPayloadReads } from "./payload-reads.ts";
import { CompactionMemo, compactPayload, hydratePayloads, MIN_REF_BYTES, PAYLOAD_REF_KEY, type PayloadSink } from "./payload-refs.ts";
import { PayloadStore } from "./payload-store.ts";
import { ObservationTracker } from "../runs/observation-tracker.ts";
import { observationStub } from "./observation-refs.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const system = `You are a villager. ${"Act through the tools you are given. ".repeat(40)}`;
const history = (n: number) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `Message ${i}: ${"a fairly long line of chat ".repeat(12)}` }));

/**
 * What the journal stores for one agent step: the run, its input node and its LLM node carry the same prompt and
 * history. The run's observations as ExternalRunRecorder's tracker makes them while it runs are returned.
 */
function step(journal: EventJournal, runId: string, messages: unknown[]): Observation[] {
  const inputs = { system, messages };
  const observed: Observation[] = [];
  const tracker = new ObservationTracker(runId, (ord, observation) => {
    observed[ord] = observation;
    journal.addObservation(ord, observation);
  });
  const append = (event: unknown) => tracker.onEvent(journal.append(runId, event as RunEvent));
  journal.openNew(runId);
  append({ type: "run.started", runId, workflowId: "agent-deliberation", nodeCount: 2, inputs });
  append({ type: "node.started", nodeId: "in", invocationId: `${runId}:in`, nodeType: "core:workflow-input", inputs, attempt: 1 });
  append({ type: "node.completed", nodeId: "in", invocationId: `${runId}:in`, outputs: inputs, durationMs: 1, cached: false });
  append({ type: "node.started", nodeId: "llm", invocationId: `${runId}:llm`, nodeType: "llm:chat", inputs, attempt: 1 });
  append({ type: "node.chunk", nodeId: "llm", invocationId: `${runId}:llm`, index: 0, chunk: "o" });
  append({ type: "node.completed", nodeId: "llm", invocationId: `${runId}:llm`, outputs: { text: "ok" }, durationMs: 1, cached: false });
  return observed;
}

function tableBytes(storage: Storage, table: string): number {
  return (requireSqlite(storage.sql, "test").db.query(`SELECT coalesce(sum(length(data)), 0) AS n FROM ${table}`).get() as { n: number }).n;
}

describe("large values stored once", () => {
  it("references each large value by its content and gives it back whole", async () => {
    const texts = new Map<string, string>();
    const sink: PayloadSink = { put: (json) => (texts.set(`id${texts.size}`, json), `id${texts.size - 1}`) };
    const value = { system, messages: history(3), small: { n: 1 } };
    const compact = compactPayload(value, sink, (j) => j) as Record<string, unknown>;
    expect(compact).toEqual({ [PAYLOAD_REF_KEY]: expect.any(String) });
    expect(compactPayload({ n: 1 }, sink, (j) => j)).toEqual({ n: 1 });
    expect(JSON.stringify(compact).length).toBeLessThan(MIN_REF_BYTES);
    const back = await hydratePayloads(compact, async (ids) => new Map(ids.map((id) => [id, texts.get(id) as string])));
    expect(back).toEqual(value);
    expect(await hydratePayloads({ x: { [PAYLOAD_REF_KEY]: "gone" } }, async () => new Map())).toEqual({ x: { $weftPayloadMissing: "gone" } });
  });

  it("stores a step's prompt and history once across events, observations and the run, and readers get every record as it was sent", async () => {
    const raw = openSqliteStorage(tempDir(), new SecretRedactor());
    opened.push(raw);
    const payloads = new PayloadStore(raw.sql);
    const storage = withPayloadReads(raw, payloads);
    const hub = new EventHub();
    const live: string[] = [];
    hub.subscribe("r2", (events) => live.push(...events.map((e) => e.json)));
    const journal = new EventJournal(storage, hub, { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    const deliberation = WorkflowSchema.parse({
      id: "agent-deliberation",
      name: "Deliberate",
      nodes: [{ id: "in", type: "core:workflow-input", config: { name: "messages", portType: "json" } }],
      description: "x".repeat(300),
    });
    journal.addRun({ id: "r1", workflowId: "agent-deliberation", workflowRevision: 0, status: "running", inputs: { system, messages: history(40) }, outputs: {}, createdAt: 1 }, deliberation);
    journal.addRun({ id: "r0", workflowId: "agent-deliberation", workflowRevision: 0, status: "running", inputs: {}, outputs: {}, createdAt: 1 }, deliberation);
    step(journal, "r1", history(40));
    await journal.flush();
    const first = tableBytes(raw, "events") + tableBytes(raw, "observations") + tableBytes(raw, "payloads");
    // The next step: one more message in the history, the same prompt.
    const observed = step(journal, "r2", history(41));
    await journal.flush();
    const second = tableBytes(raw, "events") + tableBytes(raw, "observations") + tableBytes(raw, "payloads") - first;
    const whole = JSON.stringify({ system, messages: history(41) }).length;
    expect(second).toBeLessThan(whole / 2);

    const events = await storage.events.listAfter("r2", -1, 10);
    expect(events.map((e) => JSON.parse(e.json) as unknown)).toEqual(live.map((j) => JSON.parse(j) as unknown));
    expect(JSON.parse(events[1]!.json)).toMatchObject({ type: "node.started", inputs: { system, messages: history(41) } });
    expect(JSON.parse(events[2]!.json)).toMatchObject({ type: "node.completed", outputs: { system, messages: history(41) } });
    // No observation rows: the reader makes the running run's observations from its node events, whole.
    expect(observed.map((o) => o.nodeId)).toEqual(["in", "llm"]);
    expect(await storage.observations.listByRun("r2")).toEqual(observed);
    expect(observed[1]).toMatchObject({ status: "completed", inputs: { system, messages: history(41) }, outputs: { text: "ok" }, chunks: ["o"] });
    expect(await raw.observations.listByRun("r2")).toEqual([]);
    expect((await storage.runs.get("r1"))?.inputs).toEqual({ system, messages: history(40) });
    // Both runs' snapshots are one stored text; each reads back whole.
    expect(await storage.runs.getWorkflow("r0")).toEqual(deliberation);
    expect(await storage.runs.getWorkflow("r1")).toEqual(deliberation);
    expect(await storage.runs.getWorkflow("nope")).toBeUndefined();
    // Stored, the records reference the values.
    expect(JSON.stringify(await raw.events.listAfter("r2", -1, 10))).toContain(PAYLOAD_REF_KEY);
  });

  it("reads the observation stubs earlier versions stored for a running run, filled from its events", async () => {
    const raw = openSqliteStorage(tempDir(), new SecretRedactor());
    opened.push(raw);
    const payloads = new PayloadStore(raw.sql);
    const storage = withPayloadReads(raw, payloads);
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    const observed = step(journal, "r1", history(3));
    await journal.flush();
    await raw.observations.upsert(observed.map((observation, ord) => ({ ord, observation: observationStub(observation) })));
    expect(JSON.stringify(await raw.observations.listByRun("r1"))).not.toContain("Message 0");
    expect(await storage.observations.listByRun("r1")).toEqual(observed);
  });

  it("redacts a stored secret inside a referenced value", async () => {
    const redactor = new SecretRedactor();
    redactor.set("k", "api key", ["sk-secret-123456"]);
    const raw = openSqliteStorage(tempDir(), redactor);
    opened.push(raw);
    const payloads = new PayloadStore(raw.sql);
    const journal = new EventJournal(withPayloadReads(raw, payloads), new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    step(journal, "r1", [{ role: "user", content: `my key is sk-secret-123456 ${"x".repeat(400)}` }]);
    await journal.flush();
    const db = requireSqlite(raw.sql, "test").db;
    const all = (db.query("SELECT group_concat(data) AS t FROM payloads").get() as { t: string }).t + (db.query("SELECT group_concat(data) AS t FROM events").get() as { t: string }).t;
    expect(all).not.toContain("sk-secret-123456");
  });
});

describe("values handed over again", () => {
  it("are compacted once: the memo gives the earlier result, without serializing or storing again", () => {
    const puts: string[] = [];
    const sink: PayloadSink = { put: (json) => (puts.push(json), `id${puts.length - 1}`) };
    const memo = new CompactionMemo();
    const value = { system, messages: history(5) };
    const first = compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    const stored = puts.length;
    expect(stored).toBeGreaterThan(5);
    expect(compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES, memo)).toBe(first);
    // The same history in another record: its messages and the prompt are found, only the new wrapper is stored.
    compactPayload({ messages: value.messages, system }, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    expect(puts.length).toBe(stored + 1);
    // At another depth the result differs, so it is not taken from the memo.
    expect(compactPayload(value, sink, (j) => j, 3, MIN_REF_BYTES, memo)).not.toBe(first);
  });

  it("are redacted with the secrets known now: a secret set after a value was stored is redacted in its next record", async () => {
    const redactor = new SecretRedactor();
    const raw = openSqliteStorage(tempDir(), redactor);
    opened.push(raw);
    const payloads = new PayloadStore(raw.sql);
    const journal = new EventJournal(withPayloadReads(raw, payloads), new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    const messages = [{ role: "user", content: `my key is sk-later-123456 ${"x".repeat(400)}` }];
    step(journal, "r1", messages);
    await journal.flush();
    redactor.set("k", "api key", ["sk-later-123456"]);
    const before = (requireSqlite(raw.sql, "test").db.query("SELECT max(rowid) AS n FROM payloads").get() as { n: number }).n;
    step(journal, "r2", messages);
    await journal.flush();
    const db = requireSqlite(raw.sql, "test").db;
    const later =
      (db.query("SELECT group_concat(data) AS t FROM payloads WHERE rowid > ?").get(before) as { t: string }).t +
      (db.query("SELECT group_concat(data) AS t FROM events WHERE stream_id = 'r2'").get() as { t: string }).t;
    expect(later).toContain("[redacted:api key]");
    expect(later).not.toContain("sk-later-123456");
  });
});

describe("long texts", () => {
  it("share their unchanged beginning: two prompts that differ at the end store the common pieces once", async () => {
    const texts = new Map<string, string>();
    const sink: PayloadSink = {
      put: (json) => {
        const id = `id${[...texts.values()].indexOf(json) >= 0 ? [...texts.values()].indexOf(json) : texts.size}`;
        texts.set(id, json);
        return id;
      },
    };
    const manual = Array.from({ length: 8 }, (_, i) => `Rule ${i}: ${"act through the tools ".repeat(20)}`).join("\n\n");
    const a = `${manual}\n\nWORLD_STATE\n{"mood": 1}`;
    const b = `${manual}\n\nWORLD_STATE\n{"mood": 2}`;
    compactPayload(a, sink, (j) => j);
    const before = [...texts.values()].join("").length;
    const compact = compactPayload(b, sink, (j) => j);
    expect([...texts.values()].join("").length - before).toBeLessThan(300);
    expect(await hydratePayloads({ system: compact }, async (ids) => new Map(ids.map((id) => [id, texts.get(id) as string])))).toEqual({ system: b });
  });
});
