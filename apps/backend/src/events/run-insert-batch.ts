/** Rows per flush: a multi-row insert of runs binds 18 values a row, far below PostgreSQL's 65,535. */
const MAX_ROWS = 256;

interface Waiter<R> {
  row: R;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * New runs' rows written together: rows that arrive while one write is under way go into the next, one statement and
 * one commit for all (a webhook under load committed each run alone). A failed write of several rows is tried row by
 * row, so one bad row fails only its own caller.
 */
export class RunInsertBatch<R> {
  private pending: Waiter<R>[] = [];
  private writing = false;

  /** `write` stores the rows, all or none. */
  constructor(private readonly write: (rows: R[]) => Promise<void>) {}

  /** Resolves once the row is stored. */
  add(row: R): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_ROWS);
      try {
        await this.write(batch.map((w) => w.row));
        for (const w of batch) w.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        else await Promise.all(batch.map((w) => this.write([w.row]).then(w.resolve, w.reject)));
      }
    }
    this.writing = false;
  }
}
