/** A trigger's last fire: when, and the run it started. */
export interface FireRow {
  workflowId: string;
  nodeId: string;
  at: number;
  runId: string;
}

/**
 * Last fires written together: fires that arrive while one write is under way go into the next, and of a hook's
 * fires only its latest is written (the row keeps only the last one), one statement per hook and one commit for all
 * instead of a commit per request. Each caller resolves once a write that includes its fire (or a later one) is stored.
 */
export class FireBatch {
  private pending = new Map<string, { row: FireRow; waiters: { resolve: () => void; reject: (error: unknown) => void }[] }>();
  private writing = false;

  /** `write` stores each row's fire on its trigger (at most one row per trigger). */
  constructor(private readonly write: (rows: FireRow[]) => Promise<void>) {}

  record(row: FireRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = `${row.workflowId}\n${row.nodeId}`;
      const entry = this.pending.get(key);
      if (entry === undefined) this.pending.set(key, { row, waiters: [{ resolve, reject }] });
      else {
        if (row.at >= entry.row.at) entry.row = row;
        entry.waiters.push({ resolve, reject });
      }
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.write(batch.map((entry) => entry.row));
        for (const entry of batch) for (const w of entry.waiters) w.resolve();
      } catch (error) {
        for (const entry of batch) for (const w of entry.waiters) w.reject(error);
      }
    }
    this.writing = false;
  }
}
