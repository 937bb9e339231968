import type { Logger, Observation, RunEvent, RunEventDraft, Workflow } from "@weft/types";
import type { JournalStorage, WriteBatch } from "./write-batch.ts";
import type { StoredEvent } from "./event-repository.ts";
import type { RunRecord, RunUpdate } from "./run-repository.ts";
import { isRunEnding, type EventHub } from "./event-hub.ts";
import { messageOf } from "@weft/types";
import { CompactionMemo, compactFields, compactPayload, MIN_REF_BYTES } from "./payload-refs.ts";
import { envelopeFree } from "./event-envelope.ts";
import type { PayloadStore } from "./payload-store.ts";
import type { PayloadBlob } from "./payload-refs.ts";

const RETRY_MS = 250;

export interface JournalOptions {
  /** Flush as soon as this many events wait. */
  maxBatch: number;
  /** Otherwise flush this long after the first waiting event… */
  flushMs: number;
  /**
   * …and no sooner than this after the last write began. A write is a commit, whose cost is mostly the pages it
   * touches whatever it holds: under load writes then come at most this often, while an idle journal still flushes
   * after `flushMs`. 0 when not given.
   */
  spacingMs?: number;
}

/** An event with its sequence number not yet assigned (the journal numbers every stream). */
export type JournalEvent = RunEventDraft | RunEvent;

/**
 * A stream whose events wait for their owner's commit instead of the journal's timer: a scene's,
 * so that its events are stored in one transaction with the scene state and log they announce
 * (after a crash the stream holds exactly the changes the saved state has).
 */
export interface HeldStream {
  /**
   * Cuts the stream here (call it when taking the snapshot the events lead to): returns the write
   * of every event held so far together with `within` (the owner's own writes) in one transaction.
   * If it fails, the events are held again, in front, for the next cut.
   */
  cut(): (within: () => Promise<void>) => Promise<void>;
  /** Stops holding: what is held is stored with the next flush, later events as usual. */
  release(): void;
  /**
   * Stops holding and drops what is held (never numbered in storage: the stream has no gap). For a
   * server shutting down, whose saved state must not fall behind its stream.
   */
  discard(): void;
}

interface Held {
  live: StoredEvent[];
  stored: StoredEvent[];
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * How long held events may wait for their owner's cut before those that change no state are stored
 * on their own: an agent's permission question or a status line must reach the client even when the
 * scene logs nothing more for a while. Events that announce a state change (the owner commits them
 * within its persist interval) always wait for the cut, and so does everything after them.
 */
const HELD_MAX_WAIT_MS = 250;
const STATE_EVENT_TYPES: ReadonlySet<string> = new Set(["world.changed", "scene.event", "scene.status"]);

/** The event each live StoredEvent was made from, so taps (metrics) read its fields instead of parsing its text. */
const sources = new WeakMap<StoredEvent, RunEvent>();

/** The event a stored event of this process's journal was made from (undefined for events read back or relayed). Read-only. */
export function sourceEvent(stored: StoredEvent): RunEvent | undefined {
  return sources.get(stored);
}

/**
 * The single writer of events: numbers them per stream, stores them in batches (one transaction
 * per flush, together with the observations and run updates that go with them) and only then
 * hands them to the hub for live delivery, so nothing is ever sent that is not persisted.
 */
export class EventJournal {
  private readonly nextSeq = new Map<string, number>();
  private pending: WriteBatch = { newRuns: [], events: [], observations: [], finalObservations: [], runUpdates: [] };
  /** The pending events as live subscribers get them: whole, where the stored ones may reference their large values. */
  private live: StoredEvent[] = [];
  private readonly held = new Map<string, Held>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When `timer` fires (Date.now() time), so a sooner write can replace it. */
  private timerDue = 0;
  private lastWriteAt = -Infinity;
  private microtaskQueued = false;
  /** Set while storage refuses writes: retries then wait instead of spinning. */
  private failing = false;
  private chain: Promise<void> = Promise.resolve();
  /** Compaction results of values met before (a step's history is in several of its events), for the redaction of `memoVersion`. */
  private readonly memo = new CompactionMemo();
  private memoVersion = -1;
  private readonly redact = (json: string) => this.storage.redactor.json(json);
  private readonly runListeners: Array<(record: RunRecord) => void> = [];

  constructor(
    private readonly storage: JournalStorage,
    private readonly hub: EventHub,
    private readonly options: JournalOptions,
    private readonly log: Logger,
    /**
     * When given, large values of events, observations and runs are stored once there and referenced
     * (`payload-refs.ts`); the storage's readers resolve them (`EventTable`, `ObservationTable`).
     */
    private readonly payloads?: PayloadStore,
  ) {}

  /** Prepares a stream for appending: learns where its numbering continues. */
  async open(streamId: string): Promise<void> {
    if (this.nextSeq.has(streamId)) return;
    const last = await this.storage.events.lastSeq(streamId);
    if (!this.nextSeq.has(streamId)) this.nextSeq.set(streamId, last + 1);
  }

  /** Prepares a stream known to be new (a fresh run id): its numbering starts at 0, no lookup needed. */
  openNew(streamId: string): void {
    if (!this.nextSeq.has(streamId)) this.nextSeq.set(streamId, 0);
  }

  /**
   * Told of each run `addRun` records, before it is stored: the usage of an agent's LLM call names its run's workflow
   * and creator without reading the run back (each agent step is a new run, its row a flush away).
   */
  onRunAdded(listener: (record: RunRecord) => void): void {
    this.runListeners.push(listener);
  }

  /** Records a run started outside the API; it is stored with (before) its first events. */
  addRun(record: RunRecord, workflow: Workflow | undefined): void {
    for (const listener of this.runListeners) listener(record);
    if (!this.payloads) {
      this.pending.newRuns.push({ record, workflow });
    } else {
      // An agent's runs all snapshot the same deliberation workflow: stored once, the run's row holds its reference
      // (RunTable reads it back whole). Typed as the Workflow it stands for.
      const snapshot = workflow === undefined ? undefined : (compactPayload(workflow, this.payloads, this.redact, 0, MIN_REF_BYTES, this.currentMemo()) as Workflow);
      this.pending.newRuns.push({ record: { ...record, inputs: this.compact(record.inputs), outputs: this.compact(record.outputs) }, workflow: snapshot });
    }
    this.schedule();
  }

  /** Releases the numbering of a stream nobody appends to any more (it is reloaded on `open`). */
  close(streamId: string): void {
    this.nextSeq.delete(streamId);
  }

  /** Stamps the event with its stream, next seq and time; it is stored and published on the next flush. */
  append(streamId: string, event: JournalEvent): RunEvent {
    const seq = this.nextSeq.get(streamId);
    if (seq === undefined) throw new Error(`stream "${streamId}" was not opened on the journal`);
    this.nextSeq.set(streamId, seq + 1);
    const ts = "ts" in event && typeof event.ts === "number" ? event.ts : Date.now();
    const stamped = { ...event, streamId, seq, ts } as RunEvent;
    // The text live subscribers receive (and what is stored unless it references payloads), redacted, made once when first
    // read: most streams have no subscriber (an agent step's runs carry the whole context in four events), and the
    // metrics tap reads the event itself (sourceEvent). Events are not changed once appended, so later gives the same text.
    const redactor = this.storage.redactor;
    let text: string | undefined;
    const live: StoredEvent = {
      streamId,
      seq,
      type: stamped.type,
      get json() {
        return (text ??= redactor.json(JSON.stringify(stamped)));
      },
    };
    sources.set(live, stamped);
    const stored = this.payloads ? { streamId, seq, type: stamped.type, json: redactor.json(envelopeFree(this.compactEvent(stamped))) } : live;
    const held = this.held.get(streamId);
    if (held) {
      held.live.push(live);
      held.stored.push(stored);
      held.timer ??= setTimeout(() => this.storeStateless(held), HELD_MAX_WAIT_MS);
      return stamped;
    }
    this.live.push(live);
    this.pending.events.push(stored);
    // A run's end that someone waits for (a webhook in wait mode, an API call waiting for its run) is written after
    // flushMs, not held for the spacing: the caller's answer waits for that write (up to 50 ms per request before).
    this.schedule(isRunEnding(live) && this.hub.endingListenerCount(streamId) > 0);
    return stamped;
  }

  /** The final observations of a finished run; they replace what was stored while it ran. */
  replaceObservations(runId: string, observations: Observation[]): void {
    this.pending.finalObservations.push({ runId, observations: observations.map((o) => this.compactObservation(o)) });
    this.schedule();
  }

  /**
   * A running run's observation of a finished node. With payloads on it is not stored: readers go through
   * ObservationTable.listByRun, which derives a running run's observations from its node events (stored in the same
   * transaction), as it filled the stubs stored here before. An agent step's runs finish ~7 nodes: a row and an
   * index entry each, under random run ids, were ~a fifth of the pages a busy scene writes.
   */
  addObservation(ord: number, observation: Observation): void {
    if (this.payloads) return;
    this.pending.observations.push({ ord, observation });
    this.schedule();
  }

  updateRun(update: RunUpdate): void {
    this.pending.runUpdates.push(this.payloads && update.outputs ? { ...update, outputs: this.compact(update.outputs) } : update);
    this.schedule();
  }

  private compact(fields: Record<string, unknown>): Record<string, unknown> {
    return this.payloads ? compactFields(fields, this.payloads, this.redact, this.currentMemo()) : fields;
  }

  /** The memo, emptied first when the secrets to redact changed since it was filled. */
  private currentMemo(): CompactionMemo {
    const version = this.storage.redactor.version;
    if (version !== this.memoVersion) {
      this.memo.reset();
      this.memoVersion = version;
    }
    return this.memo;
  }

  /** The event with the large values of its inputs and outputs referenced; the same object when there are none. */
  private compactEvent(event: RunEvent): RunEvent {
    if (!this.payloads) return event;
    let out = event;
    for (const key of ["inputs", "outputs"] as const) {
      const fields = key in out ? (out as unknown as Record<string, unknown>)[key] : undefined;
      if (typeof fields !== "object" || fields === null || Array.isArray(fields)) continue;
      const compact = this.compact(fields as Record<string, unknown>);
      if (compact !== fields) out = { ...out, [key]: compact } as RunEvent;
    }
    return out;
  }

  private compactObservation(observation: Observation): Observation {
    if (!this.payloads) return observation;
    const inputs = this.compact(observation.inputs);
    const outputs = this.compact(observation.outputs);
    return inputs === observation.inputs && outputs === observation.outputs ? observation : { ...observation, inputs, outputs };
  }

  /** Sets the write timer; `awaited`: flushMs from now, sooner than the spacing would allow (replacing a later timer). */
  private schedule(awaited = false): void {
    if (!this.failing && this.pending.events.length + this.pending.observations.length >= this.options.maxBatch) {
      if (!this.microtaskQueued) {
        this.microtaskQueued = true;
        queueMicrotask(() => {
          this.microtaskQueued = false;
          void this.flush().catch(() => undefined);
        });
      }
      return;
    }
    const now = Date.now();
    const delay = this.failing ? RETRY_MS : awaited ? this.options.flushMs : Math.max(this.options.flushMs, this.lastWriteAt + (this.options.spacingMs ?? 0) - now);
    if (this.timer) {
      if (this.timerDue <= now + delay) return;
      clearTimeout(this.timer);
    }
    this.timerDue = now + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, delay);
  }

  /** Holds the stream's events until its owner cuts them (see HeldStream). Open the stream first. */
  hold(streamId: string): HeldStream {
    const held: Held = { live: [], stored: [] };
    this.held.set(streamId, held);
    return {
      cut: () => {
        clearTimeout(held.timer);
        held.timer = undefined;
        const live = held.live.splice(0);
        const stored = held.stored.splice(0);
        return (within) => this.enqueue(() => this.writePending({ held, live, stored, within }));
      },
      release: () => {
        if (this.held.get(streamId) !== held) return;
        this.held.delete(streamId);
        clearTimeout(held.timer);
        this.live.push(...held.live.splice(0));
        this.pending.events.push(...held.stored.splice(0));
        this.schedule();
      },
      discard: () => {
        if (this.held.get(streamId) !== held) return;
        this.held.delete(streamId);
        clearTimeout(held.timer);
        held.live.length = 0;
        held.stored.length = 0;
        // Numbering starts again from what is stored when the stream is opened next.
        this.nextSeq.delete(streamId);
      },
    };
  }

  /** The held events before the first that announces a state change, stored with the next flush (see HELD_MAX_WAIT_MS). */
  private storeStateless(held: Held): void {
    held.timer = undefined;
    if (![...this.held.values()].includes(held)) return;
    const stateful = held.stored.findIndex((e) => STATE_EVENT_TYPES.has(e.type));
    const count = stateful < 0 ? held.stored.length : stateful;
    if (count === 0) return;
    this.live.push(...held.live.splice(0, count));
    this.pending.events.push(...held.stored.splice(0, count));
    this.schedule();
  }

  /** Stores everything appended so far, then publishes its events. Resolves once both are done. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    return this.enqueue(() => this.writePending());
  }

  /** Writes run one after another, in the order asked. */
  private enqueue(write: () => Promise<void>): Promise<void> {
    const run = this.chain.then(write);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stores what waits (and a held stream's cut with its owner's writes, in one transaction), then publishes. */
  private async writePending(cut?: { held: Held; live: StoredEvent[]; stored: StoredEvent[]; within: () => Promise<void> }): Promise<void> {
    const pending = this.pending;
    const pendingLive = this.live;
    if (!cut && pending.newRuns.length + pending.events.length + pending.observations.length + pending.finalObservations.length + pending.runUpdates.length === 0) return;
    const batch = cut ? { ...pending, events: [...pending.events, ...cut.stored] } : pending;
    this.pending = { newRuns: [], events: [], observations: [], finalObservations: [], runUpdates: [] };
    this.live = [];
    this.lastWriteAt = Date.now();
    // A held stream's cut takes everything waiting too: the timer set for it would only write what came since.
    if (this.timer && !this.failing) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    let texts: PayloadBlob[] = [];
    // One transaction: the referenced texts, the batch and the owner's writes commit together (a commit apiece cost
    // a busy scene about one more commit per agent step).
    const write = async () => {
      texts = (await this.payloads?.flush()) ?? [];
      await this.storage.writeBatch(batch);
      await cut?.within();
    };
    try {
      await this.storage.transaction(write);
    } catch (error) {
      // Rolled back with the transaction: the texts go again with the next write.
      this.payloads?.restore(texts);
      // Put the batch back in front so the next flush retries it in order; the transaction was all or nothing.
      this.pending = {
        newRuns: [...pending.newRuns, ...this.pending.newRuns],
        events: [...pending.events, ...this.pending.events],
        observations: [...pending.observations, ...this.pending.observations],
        finalObservations: [...pending.finalObservations, ...this.pending.finalObservations],
        runUpdates: [...pending.runUpdates, ...this.pending.runUpdates],
      };
      this.live = [...pendingLive, ...this.live];
      if (cut) {
        // Held again, in front, for the owner's next cut; once released, with the next flush.
        if ([...this.held.values()].includes(cut.held)) {
          cut.held.live.unshift(...cut.live);
          cut.held.stored.unshift(...cut.stored);
        } else {
          this.pending.events.push(...cut.stored);
          this.live.push(...cut.live);
        }
      }
      this.failing = true;
      this.log.error("storing events failed; will retry", { error: messageOf(error), events: batch.events.length });
      this.schedule();
      throw error;
    }
    this.failing = false;
    this.hub.publish(cut ? [...pendingLive, ...cut.live] : pendingLive);
  }
}
