import { afterEach, describe, expect, it } from "vitest";
import { SecretRedactor, silentLogger, WorkflowSchema } from "@weft/types";
import { openSqliteStorage, requireSqlite, type Storage } from "../testing/storage.ts";
import { tempDir } from "../testing/test-server.ts";
import { EventHub } from "./event-hub.ts";
import { EventJournal } from "./event-journal.ts";
import { CompactionMemo, compactFields, compactPayload, hydratePayloads, ITEMS_KEY, MIN_REF_BYTES, PAYLOAD_REF_KEY, payloadId, type PayloadSink } from "./payload-refs.ts";
import { PayloadStore } from "./payload-store.ts";
import { history, step, system } from "./testing/journal-steps.ts";
import { observationStub } from "./observation-refs.ts";
import { MIGRATIONS } from "../schema.ts";

const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A run's rows of `table` as stored (the repositories read them back whole). */
function storedRows(storage: Storage, table: string, column: string, id: string): string[] {
  return requireSqlite(storage.sql, "test")
    .db.query<{ data: string }, [string]>(`SELECT data FROM ${table} WHERE ${column} = ?`)
    .all(id)
    .map((r) => r.data);
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
    const storage = await openSqliteStorage(tempDir(), new SecretRedactor(), MIGRATIONS);
    opened.push(storage);
    const payloads = new PayloadStore(storage);
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
    const first = tableBytes(storage, "events") + tableBytes(storage, "observations") + tableBytes(storage, "payloads");
    // The next step: one more message in the history, the same prompt.
    const observed = step(journal, "r2", history(41));
    await journal.flush();
    const second = tableBytes(storage, "events") + tableBytes(storage, "observations") + tableBytes(storage, "payloads") - first;
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
    expect(storedRows(storage, "observations", "run_id", "r2")).toEqual([]);
    expect((await storage.runs.get("r1"))?.inputs).toEqual({ system, messages: history(40) });
    // Both runs' snapshots are one stored text; each reads back whole.
    expect(await storage.runs.getWorkflow("r0")).toEqual(deliberation);
    expect(await storage.runs.getWorkflow("r1")).toEqual(deliberation);
    expect(await storage.runs.getWorkflow("nope")).toBeUndefined();
    // Stored, the records reference the values.
    expect(JSON.stringify(storedRows(storage, "events", "stream_id", "r2"))).toContain(PAYLOAD_REF_KEY);
  });

  it("reads the observation stubs earlier versions stored for a running run, filled from its events", async () => {
    const storage = await openSqliteStorage(tempDir(), new SecretRedactor(), MIGRATIONS);
    opened.push(storage);
    const payloads = new PayloadStore(storage);
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    const observed = step(journal, "r1", history(3));
    await journal.flush();
    await storage.observations.upsert(observed.map((observation, ord) => ({ ord, observation: observationStub(observation) })));
    expect(JSON.stringify(storedRows(storage, "observations", "run_id", "r1"))).not.toContain("Message 0");
    expect(await storage.observations.listByRun("r1")).toEqual(observed);
  });

  it("redacts a stored secret inside a referenced value", async () => {
    const redactor = new SecretRedactor();
    redactor.set("k", "api key", ["sk-secret-123456"]);
    const storage = await openSqliteStorage(tempDir(), redactor, MIGRATIONS);
    opened.push(storage);
    const payloads = new PayloadStore(storage);
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    step(journal, "r1", [{ role: "user", content: `my key is sk-secret-123456 ${"x".repeat(400)}` }]);
    await journal.flush();
    const db = requireSqlite(storage.sql, "test").db;
    const all = (db.query("SELECT group_concat(data) AS t FROM payloads").get() as { t: string }).t + (db.query("SELECT group_concat(data) AS t FROM events").get() as { t: string }).t;
    expect(all).not.toContain("sk-secret-123456");
  });
});

describe("values handed over again", () => {
  it("are compacted once: the memo gives the earlier result, without serializing or storing again", () => {
    const puts: string[] = [];
    const sink: PayloadSink = { put: (json) => (puts.push(json), payloadId(json)) };
    const memo = new CompactionMemo();
    const value = { system, messages: history(5) };
    const first = compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    const stored = puts.length;
    expect(stored).toBeGreaterThan(5);
    expect(compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES, memo)).toBe(first);
    // The same history in another record: its messages and the prompt are found, only the new wrapper is stored.
    compactPayload({ messages: value.messages, system }, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    expect(puts.length).toBe(stored + 1);
    // A new list of the same messages (the next step's history) with one more: its runs are found, not serialized again.
    const longer = history(40);
    compactPayload(longer, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    const before = puts.length;
    const next = [...longer, { role: "user", content: "one more" }];
    expect(JSON.stringify(compactPayload(next, sink, (j) => j, 1, MIN_REF_BYTES, memo))).toContain(PAYLOAD_REF_KEY);
    expect(puts.length).toBe(before + 1);
    expect(puts.at(-1)).toContain(ITEMS_KEY);
    // At another depth the result differs, so it is not taken from the memo.
    expect(compactPayload(value, sink, (j) => j, 3, MIN_REF_BYTES, memo)).not.toBe(first);
  });

  it("are redacted with the secrets known now: a secret set after a value was stored is redacted in its next record", async () => {
    const redactor = new SecretRedactor();
    const storage = await openSqliteStorage(tempDir(), redactor, MIGRATIONS);
    opened.push(storage);
    const payloads = new PayloadStore(storage);
    const journal = new EventJournal(storage, new EventHub(), { maxBatch: 512, flushMs: 5 }, silentLogger, payloads);
    const messages = [{ role: "user", content: `my key is sk-later-123456 ${"x".repeat(400)}` }];
    step(journal, "r1", messages);
    await journal.flush();
    redactor.set("k", "api key", ["sk-later-123456"]);
    const before = (requireSqlite(storage.sql, "test").db.query("SELECT max(rowid) AS n FROM payloads").get() as { n: number }).n;
    step(journal, "r2", messages);
    await journal.flush();
    const db = requireSqlite(storage.sql, "test").db;
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

/** A sink keyed by real content ids (where runs and pieces end depends on them), counting what each put adds. */
function contentSink() {
  const texts = new Map<string, string>();
  let added = 0;
  const sink: PayloadSink = {
    put: (json) => {
      const id = payloadId(json);
      if (!texts.has(id)) added += json.length;
      texts.set(id, json);
      return id;
    },
  };
  const load = async (ids: string[]) => new Map(ids.flatMap((id) => (texts.has(id) ? [[id, texts.get(id) as string] as const] : [])));
  return { texts, sink, load, added: () => added };
}

/** Ids a reference finder that knows only `{"$weftPayload":"<id>"}` (the retention sweep's) reaches from the value. */
function reachableIds(value: unknown, texts: ReadonlyMap<string, string>): Set<string> {
  const found = new Set<string>();
  const queue = [JSON.stringify(value)];
  while (queue.length > 0) {
    for (const match of (queue.pop() as string).matchAll(/\$weftPayload"\s*:\s*"([A-Za-z0-9_-]{22})/g)) {
      const id = match[1] as string;
      if (found.has(id)) continue;
      found.add(id);
      queue.push(texts.get(id) ?? "");
    }
  }
  return found;
}

describe("growing lists", () => {
  const message = (i: number) => ({ role: i % 2 ? "assistant" : "user", content: `Message ${i}: ${"chat ".repeat(30)}` });
  const systemAt = (step: number) => ({ role: "system", content: `You are v1. The world: ${JSON.stringify({ step })} ${"rules ".repeat(40)}` });
  const contextAt = (step: number, from = 0) => [systemAt(step), ...Array.from({ length: 80 + 2 * step - from }, (_, i) => message(from + i))];

  it("store what a step adds, not the history again, whether it grows at its end or is trimmed at its front, and read back whole", async () => {
    const { texts, sink, load, added } = contentSink();
    const memo = new CompactionMemo();
    const compact = (value: unknown) => compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES, memo);
    compact(contextAt(0));
    const perStep: number[] = [];
    const compacted: unknown[] = [];
    for (let step = 1; step <= 6; step++) {
      const before = added();
      // Steps 4 to 6: the context window drops the oldest messages after the system prompt.
      const value = contextAt(step, step > 3 ? 4 * (step - 3) : 0);
      compacted.push(compact(value));
      perStep.push(added() - before);
      expect(await hydratePayloads(compacted.at(-1), load)).toEqual(value);
    }
    // Two new messages and the new system message, and the list's few references: a list of ~90 item references alone
    // is ~3.7 KB.
    const whole = JSON.stringify(Array.from({ length: 92 }, () => ({ [PAYLOAD_REF_KEY]: "x".repeat(22) }))).length;
    expect(whole).toBeGreaterThan(3500);
    // Each step's own texts are ~850 bytes; a trim at the front also makes the first run of each level anew.
    perStep.slice(0, 3).forEach((bytes) => expect(bytes).toBeLessThan(1500));
    perStep.slice(3).forEach((bytes) => expect(bytes).toBeLessThan(2500));
    // The stored list holds runs of items, each run's reference an ordinary one: the retention sweep, which knows only
    // those, reaches every text the list needs.
    expect(JSON.stringify(texts.get((compacted[0] as Record<string, string>)[PAYLOAD_REF_KEY]))).toContain(ITEMS_KEY);
    for (const value of compacted) {
      const reached = reachableIds(value, texts);
      const onlyReached = async (ids: string[]) => new Map(ids.filter((id) => reached.has(id)).map((id) => [id, texts.get(id) as string] as const));
      expect(JSON.stringify(await hydratePayloads(value, onlyReached))).not.toContain("$weftPayloadMissing");
    }
  });

  it("read a stored run that is gone as a missing payload in its place, and leave short lists and a user's look-alike objects as they are", async () => {
    const { texts, sink, load } = contentSink();
    const value = contextAt(0);
    const compact = compactPayload(value, sink, (j) => j, 1, MIN_REF_BYTES);
    const top = JSON.parse(texts.get((compact as Record<string, string>)[PAYLOAD_REF_KEY]) as string) as unknown[];
    const run = top.find((item) => typeof item === "object" && item !== null && ITEMS_KEY in item) as Record<string, Record<string, string>>;
    texts.delete(run[ITEMS_KEY]![PAYLOAD_REF_KEY]!);
    const back = (await hydratePayloads(compact, load)) as unknown[];
    expect(back).toContainEqual({ $weftPayloadMissing: run[ITEMS_KEY]![PAYLOAD_REF_KEY] });
    expect(back.length).toBeLessThan(value.length);
    // Not a run: its inner value is not a reference.
    const lookAlike = [{ [ITEMS_KEY]: [1, 2] }];
    expect(await hydratePayloads(lookAlike, load)).toEqual(lookAlike);
    const short = [message(1), message(2)];
    expect(
      await hydratePayloads(
        compactPayload(short, sink, (j) => j, 1, MIN_REF_BYTES),
        load,
      ),
    ).toEqual(short);
  });
});

describe("long texts whose middle changes", () => {
  it("share every piece but the one or two around the change: a world state of 50 villagers with one new mood", async () => {
    const { sink, load, added } = contentSink();
    const world = (moods: number[]) => JSON.stringify({ villagers: Object.fromEntries(moods.map((m, i) => [`v${i + 1}`, { mood: m }])) }, null, 1);
    const prompt = (moods: number[]) => `You are v1, a villager.\n\nWORLD_STATE (shared by every agent in the scene)\n${world(moods)}`;
    const moods = Array.from({ length: 50 }, (_, i) => 100 + i);
    compactPayload(prompt(moods), sink, (j) => j);
    expect(world(moods).length).toBeGreaterThan(1500);
    for (const at of [3, 25, 48]) {
      moods[at] = 1000 + at;
      const before = added();
      const compact = compactPayload(prompt(moods), sink, (j) => j);
      expect(added() - before).toBeLessThan(1200);
      expect(await hydratePayloads({ system: compact }, load)).toEqual({ system: prompt(moods) });
    }
  });
});

describe("long texts with a memo", () => {
  it("serialize and store only the pieces not met before, and read back whole", async () => {
    const { sink, load } = contentSink();
    const puts: string[] = [];
    const counting: PayloadSink = { put: (json) => (puts.push(json), sink.put(json)) };
    const memo = new CompactionMemo();
    const lines = (from: number) => Array.from({ length: 60 }, (_, i) => `line ${i} of the prompt, with enough text to make pieces: ${i === 30 ? from : i}`).join("\n");
    compactPayload(lines(1), counting, (j) => j, 0, MIN_REF_BYTES, memo);
    const before = puts.length;
    const changed = compactPayload(lines(2), counting, (j) => j, 0, MIN_REF_BYTES, memo);
    // The changed piece and the new list of pieces: the others come from the memo, not serialized or put again.
    expect(puts.length - before).toBe(2);
    expect(await hydratePayloads({ system: changed }, load)).toEqual({ system: lines(2) });
  });
});

describe("what stays inline", () => {
  it("is what serializes shorter than the threshold, whatever JSON leaves out or escapes", () => {
    const sink: PayloadSink = { put: (json) => payloadId(json) };
    const near = (n: number) => [
      { text: "x".repeat(n) },
      { text: '"'.repeat(n / 2), gone: undefined, fn: () => 1 },
      ["y".repeat(n), undefined, null, true, 1.5],
      { when: new Date(0), list: Array.from({ length: n / 8 }, (_, i) => i) },
      { nested: { deeper: { text: "é\n".repeat(n / 3) } } },
    ];
    for (const n of [60, 120, 200, 240, 250, 260, 400]) {
      for (const value of near(n)) {
        const inline = (JSON.stringify(value) as string).length < MIN_REF_BYTES;
        expect(compactPayload(value, sink, (j) => j, 0, MIN_REF_BYTES) === value).toBe(inline);
      }
    }
  });

  it("keeps every field of a record, a parsed `__proto__` key too, when its values are referenced", async () => {
    const texts = new Map<string, string>();
    const sink: PayloadSink = { put: (json) => (texts.set(payloadId(json), json), payloadId(json)) };
    const record = JSON.parse(`{"__proto__":{"text":"${"p".repeat(300)}"},"plain":"${"q".repeat(300)}","short":1}`) as Record<string, unknown>;
    const compact = compactFields(record, sink, (j) => j);
    expect(Object.keys(compact)).toEqual(["__proto__", "plain", "short"]);
    expect(Object.getPrototypeOf(compact)).toBe(Object.prototype);
    expect(await hydratePayloads(compact, async (ids) => new Map(ids.map((id) => [id, texts.get(id)!])))).toEqual(record);
  });
});
