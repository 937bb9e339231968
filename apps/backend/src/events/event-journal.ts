import type { Logger, Observation, RunEvent, RunEventDraft, Workflow } from "@weft/types";
import type { Storage, WriteBatch } from "../storage/storage.ts";
import type { StoredEvent } from "../storage/event-repository.ts";
import type { RunRecord, RunUpdate } from "../storage/run-repository.ts";
import type { EventHub } from "./event-hub.ts";
import { messageOf } from "@weft/types";
import { compactFields } from "./payload-refs.ts";
import type { PayloadStore } from "./payload-store.ts";

const RETRY_MS = 250;

export interface JournalOptions {
  /** Flush as soon as this many events wait. */
  maxBatch: number;
  /** Otherwise flush this long after the first waiting event. */
  flushMs: number;
}

/** An event with its sequence number not yet assigned (the journal numbers every stream). */
export type JournalEvent = RunEventDraft | RunEvent;

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
  private timer: ReturnType<typeof setTimeout> | undefined;
  private microtaskQueued = false;
  /** Set while storage refuses writes: retries then wait instead of spinning. */
  private failing = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly hub: EventHub,
    private readonly options: JournalOptions,
    private readonly log: Logger,
    /**
     * When given, large values of events, observations and runs are stored once there and referenced
     * (`payload-refs.ts`); the storage's readers must then resolve them (`withPayloadReads`).
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

  /** Records a run started outside the API; it is stored with (before) its first events. */
  addRun(record: RunRecord, workflow: Workflow | undefined): void {
    this.pending.newRuns.push({ record: this.payloads ? { ...record, inputs: this.compact(record.inputs), outputs: this.compact(record.outputs) } : record, workflow });
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
    // Redacted here, once: this text is what live subscribers receive, and what is stored unless it references payloads.
    const live = { streamId, seq, type: stamped.type, json: this.storage.redactor.json(JSON.stringify(stamped)) };
    const compact = this.compactEvent(stamped);
    this.live.push(live);
    this.pending.events.push(compact === stamped ? live : { ...live, json: this.storage.redactor.json(JSON.stringify(compact)) });
    this.schedule();
    return stamped;
  }

  /** The final observations of a finished run; they replace what was stored while it ran. */
  replaceObservations(runId: string, observations: Observation[]): void {
    this.pending.finalObservations.push({ runId, observations: observations.map((o) => this.compactObservation(o)) });
    this.schedule();
  }

  addObservation(ord: number, observation: Observation): void {
    this.pending.observations.push({ ord, observation: this.compactObservation(observation) });
    this.schedule();
  }

  updateRun(update: RunUpdate): void {
    this.pending.runUpdates.push(this.payloads && update.outputs ? { ...update, outputs: this.compact(update.outputs) } : update);
    this.schedule();
  }

  private compact(fields: Record<string, unknown>): Record<string, unknown> {
    return this.payloads ? compactFields(fields, this.payloads, (json) => this.storage.redactor.json(json)) : fields;
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

  private schedule(): void {
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
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        void this.flush().catch(() => undefined);
      },
      this.failing ? RETRY_MS : this.options.flushMs,
    );
  }

  /** Stores everything appended so far, then publishes its events. Resolves once both are done. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const run = this.chain.then(() => this.writePending());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    const batch = this.pending;
    if (batch.newRuns.length + batch.events.length + batch.observations.length + batch.finalObservations.length + batch.runUpdates.length === 0) return;
    const live = this.live;
    this.pending = { newRuns: [], events: [], observations: [], finalObservations: [], runUpdates: [] };
    this.live = [];
    try {
      // The referenced texts first (their own transaction): a crash after it leaves unreferenced texts only.
      await this.payloads?.flush();
      await this.storage.writeBatch(batch);
    } catch (error) {
      // Put the batch back in front so the next flush retries it in order; the transaction was all or nothing.
      this.pending = {
        newRuns: [...batch.newRuns, ...this.pending.newRuns],
        events: [...batch.events, ...this.pending.events],
        observations: [...batch.observations, ...this.pending.observations],
        finalObservations: [...batch.finalObservations, ...this.pending.finalObservations],
        runUpdates: [...batch.runUpdates, ...this.pending.runUpdates],
      };
      this.live = [...live, ...this.live];
      this.failing = true;
      this.log.error("storing events failed; will retry", { error: messageOf(error), events: batch.events.length });
      this.schedule();
      throw error;
    }
    this.failing = false;
    this.hub.publish(live);
  }
}
