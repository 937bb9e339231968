import type { Database, Statement } from "bun:sqlite";
import type { DocumentType } from "../domain/target.ts";

const TABLE: Record<DocumentType, string> = { workflow: "workflows", agent: "agent_profiles", scene: "scenes" };

/**
 * Synchronous writes to the document tables (the layout of storage/document-table.ts: JSON in
 * `data`, `revision` and `name` beside it), so apply can change them inside its one transaction.
 */
export class DocumentWriter {
  private readonly selectRevision: Statement<{ revision: number }, [string]>;
  private readonly insert: Statement<unknown, [string, string, number, string, number, number]>;
  private readonly update: Statement<unknown, [string, number, string, number, string]>;
  private readonly remove: Statement<unknown, [string]>;

  constructor(db: Database, type: DocumentType) {
    const table = TABLE[type];
    this.selectRevision = db.query(`SELECT revision FROM ${table} WHERE id = ?`);
    this.insert = db.query(`INSERT INTO ${table} (id, name, revision, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
    this.update = db.query(`UPDATE ${table} SET name = ?, revision = ?, data = ?, updated_at = ? WHERE id = ?`);
    this.remove = db.query(`DELETE FROM ${table} WHERE id = ?`);
  }

  /** The stored revision, or null when the document is not stored. */
  revision(id: string): number | null {
    return this.selectRevision.get(id)?.revision ?? null;
  }

  /** Stores the document at `revision`, replacing the stored one if there is one. */
  put(document: { id: string; name: string }, revision: number, now: number): void {
    const data = JSON.stringify({ ...document, revision });
    if (this.revision(document.id) === null) this.insert.run(document.id, document.name, revision, data, now, now);
    else this.update.run(document.name, revision, data, now, document.id);
  }

  delete(id: string): void {
    this.remove.run(id);
  }
}
