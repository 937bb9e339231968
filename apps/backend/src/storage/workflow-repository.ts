import type { Database, Statement } from "bun:sqlite";
import { WorkflowSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { decodeStoredJson, listReadable, SqliteDocumentTable, type DocumentRepository, type Listing } from "./document-table.ts";
import { SUMMARY_COLUMN_NAMES, summaryColumns, summaryFrom } from "./workflow-summary.ts";

export interface WorkflowRepository extends DocumentRepository<Workflow> {
  /** Every stored workflow's summary, by name then id; a record that does not read is left out and reported. */
  summaries(): Promise<Listing<WorkflowSummary>>;
  /** The workflows with a node that calls `skillId` (`config.workflowId` of one of `callingTypes`), by name. */
  callersOf(skillId: string, callingTypes: readonly string[]): Promise<{ id: string; name: string }[]>;
  /**
   * Whether a workflow of that id is stored, synchronously, for the validators' skill check. SQLite:
   * exact. PostgreSQL: from this process's writes and the ids other processes' commits announce, so a
   * workflow another process created is known a moment (one notification) after its commit.
   */
  isStored(id: string): boolean;
}

interface SummaryRow {
  id: string;
  name: string;
  revision: number;
  updated_at: number;
  data: string | null;
  description: string | null;
  tags: string | null;
  node_count: number | null;
  is_skill: number | null;
  interface: string | null;
}

/**
 * Workflows in SQLite. The list reads the summary columns written with each workflow; a row written
 * before those columns existed (schema 7) is decoded once and its columns filled in.
 */
class SqliteWorkflowRepository extends SqliteDocumentTable<Workflow> implements WorkflowRepository {
  private readonly selectSummaries: Statement<SummaryRow, []>;
  private readonly fillSummary: Statement<unknown, [string, string, number, number, string, string, number]>;
  private readonly selectCallers: Statement<{ id: string; name: string }, [string, string]>;

  constructor(db: Database) {
    super(db, "workflows", WorkflowSchema, {
      names: SUMMARY_COLUMN_NAMES,
      values: (wf) => {
        const c = summaryColumns(wf);
        return [c.description, c.tags, c.nodeCount, c.isSkill ? 1 : 0, c.interface];
      },
    });
    // `data` only for rows whose summary is not filled in yet.
    this.selectSummaries = db.query(`
      SELECT id, name, revision, updated_at, CASE WHEN node_count IS NULL THEN data END AS data, description, tags, node_count, is_skill, interface
      FROM workflows ORDER BY name COLLATE NOCASE, id`);
    this.fillSummary = db.query("UPDATE workflows SET description = ?, tags = ?, node_count = ?, is_skill = ?, interface = ? WHERE id = ? AND revision = ?");
    // The calling types come as a JSON array, so one statement serves any list of them.
    this.selectCallers = db.query(`
      SELECT id, name FROM workflows
      WHERE json_valid(data) AND json_type(data, '$.nodes') = 'array' AND EXISTS (
        SELECT 1 FROM json_each(data, '$.nodes') AS node
        WHERE node.value ->> '$.config.workflowId' = ?1 AND node.value ->> '$.type' IN (SELECT value FROM json_each(?2)))
      ORDER BY name COLLATE NOCASE, id`);
  }

  isStored(id: string): boolean {
    return this.revisionSync(id) !== null;
  }

  async callersOf(skillId: string, callingTypes: readonly string[]): Promise<{ id: string; name: string }[]> {
    return this.selectCallers.all(skillId, JSON.stringify(callingTypes));
  }

  async summaries(): Promise<Listing<WorkflowSummary>> {
    return listReadable(this.selectSummaries.all(), (row) => {
      if (row.node_count === null || row.description === null || row.tags === null || row.is_skill === null || row.interface === null) {
        const wf = decodeStoredJson("workflows", row.id, row.data ?? "", WorkflowSchema);
        const c = summaryColumns(wf);
        this.fillSummary.run(c.description, c.tags, c.nodeCount, c.isSkill ? 1 : 0, c.interface, row.id, row.revision);
        return summaryFrom({ id: row.id, name: row.name, revision: row.revision, updatedAt: row.updated_at, columns: c });
      }
      const columns = { description: row.description, tags: row.tags, nodeCount: row.node_count, isSkill: row.is_skill === 1, interface: row.interface };
      return summaryFrom({ id: row.id, name: row.name, revision: row.revision, updatedAt: row.updated_at, columns });
    });
  }
}

export function sqliteWorkflowRepository(db: Database): WorkflowRepository {
  return new SqliteWorkflowRepository(db);
}
