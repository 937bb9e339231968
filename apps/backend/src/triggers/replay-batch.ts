/** A signature to remember until `expiresAt`. */
export interface ReplayRow {
  digest: string;
  expiresAt: number;
}

/** Rows per statement: well under SQLite's and PostgreSQL's limits on bound values (two per row). */
const MAX_ROWS = 500;

interface Waiter {
  expiresAt: number;
  resolve: (accepted: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Accepted signatures written together: requests that arrive while one insert is under way go into the next, one
 * statement and one commit for all of them instead of one each (the first waits for no timer). The table's primary
 * key still decides, so two processes never both accept one signature; within a batch, a second copy is refused here.
 */
export class ReplayBatch {
  private pending = new Map<string, Waiter>();
  private writing = false;

  /** `insert` stores the rows not stored yet and answers the digests it stored. */
  constructor(private readonly insert: (rows: ReplayRow[]) => Promise<Set<string>>) {}

  /** True the first time a signature is seen by any process, false for a replay. */
  acceptOnce(digest: string, expiresAt: number): Promise<boolean> {
    if (this.pending.has(digest)) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      this.pending.set(digest, { expiresAt, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.size > 0) {
      const batch = [...this.pending].slice(0, MAX_ROWS);
      for (const [digest] of batch) this.pending.delete(digest);
      try {
        const stored = await this.insert(batch.map(([digest, w]) => ({ digest, expiresAt: w.expiresAt })));
        for (const [digest, w] of batch) w.resolve(stored.has(digest));
      } catch (error) {
        for (const [, w] of batch) w.reject(error);
      }
    }
    this.writing = false;
  }
}
