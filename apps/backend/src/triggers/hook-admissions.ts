import type { FireRow } from "./fire-batch.ts";
import type { ReplayRow } from "./trigger-repository.ts";

/** What admitting hook requests needs of storage (`TriggerService` gives the trigger table's, the run service's and the engine's). */
export interface AdmissionStore<R> {
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Stores the signatures no process stored before; answers those it stored. */
  acceptReplays(rows: ReplayRow[]): Promise<Set<string>>;
  storeRun(run: R): Promise<void>;
  /** At most one row per trigger. */
  storeFires(rows: FireRow[]): Promise<void>;
}

/** One hook request to admit: its run (built, not stored), its signature when it has one, and its fire. */
export interface Admission<R> {
  run: R;
  replay?: ReplayRow;
  fire: FireRow;
}

interface Waiting<R> extends Admission<R> {
  resolve: (admitted: boolean) => void;
  reject: (error: unknown) => void;
}

/** Requests per transaction: a multi-row insert of signatures binds two values a row; runs are inserted one by one. */
const MAX_BATCH = 256;

/**
 * Hook requests admitted together: each one's signature accepted once, its run recorded and its hook's last fire, and
 * those of every request that arrived in the same turn of the event loop, in one transaction (one commit). A commit
 * apiece for the three (signature, run, fire) was ~12% of a hook request's CPU in a profile of bench:webhook (SQLite). A request whose signature any process stored before is refused and stores nothing; so is a copy of
 * one waiting here. When a batch fails, each request is tried alone, so one bad row fails only its own caller.
 */
export class HookAdmissions<R> {
  private pending: Waiting<R>[] = [];
  /** Digests waiting here or being written: a copy is refused without waiting for the database. */
  private readonly digests = new Set<string>();
  private scheduled = false;
  private writing = false;

  constructor(private readonly store: AdmissionStore<R>) {}

  /** True once the request's run is stored (with its signature and fire); false for a signature accepted before. */
  admit(admission: Admission<R>): Promise<boolean> {
    const digest = admission.replay?.digest;
    if (digest !== undefined && this.digests.has(digest)) return Promise.resolve(false);
    if (digest !== undefined) this.digests.add(digest);
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ ...admission, resolve, reject });
      if (!this.scheduled && !this.writing) {
        this.scheduled = true;
        // After the I/O of this turn: the requests that came with it join the same commit.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        const admitted = await this.store.transaction(() => this.write(batch));
        batch.forEach((w, i) => w.resolve(admitted[i] ?? false));
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        else
          for (const w of batch) {
            await this.store.transaction(() => this.write([w])).then(([admitted]) => w.resolve(admitted ?? false), w.reject);
          }
      } finally {
        for (const w of batch) if (w.replay) this.digests.delete(w.replay.digest);
      }
    }
    this.writing = false;
  }

  /** Inside the transaction: the signatures, the admitted requests' runs, each hook's latest fire. */
  private async write(batch: readonly Waiting<R>[]): Promise<boolean[]> {
    const replays = batch.flatMap((w) => (w.replay ? [w.replay] : []));
    const accepted = replays.length > 0 ? await this.store.acceptReplays(replays) : new Set<string>();
    const admitted = batch.map((w) => w.replay === undefined || accepted.has(w.replay.digest));
    const fires = new Map<string, FireRow>();
    for (const [i, w] of batch.entries()) {
      if (!admitted[i]) continue;
      await this.store.storeRun(w.run);
      const key = `${w.fire.workflowId}\n${w.fire.nodeId}`;
      const last = fires.get(key);
      if (last === undefined || w.fire.at >= last.at) fires.set(key, w.fire);
    }
    if (fires.size > 0) await this.store.storeFires([...fires.values()]);
    return admitted;
  }
}
