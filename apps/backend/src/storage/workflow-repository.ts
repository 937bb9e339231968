import type { Database, Statement } from "bun:sqlite";
import { isSkill, workflowInterface, WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE, WorkflowSchema, type Workflow, type WorkflowSummary } from "@weft/types";
import { listReadable, SqliteDocumentTable, StoredRecordInvalidError, type DocumentRepository, type Listing } from "./document-table.ts";

export interface WorkflowRepository extends DocumentRepository<Workflow> {
  /** Every stored workflow's summary, by name then id; a record that does not read is left out and reported. */
  summaries(): Promise<Listing<WorkflowSummary>>;
  /** The workflows with a node that calls `skillId` (`config.workflowId` of one of `callingTypes`), by name. */
  callersOf(skillId: string, callingTypes: readonly string[]): Promise<{ id: string; name: string }[]>;
  /**
   * Whether a workflow of that id is stored, synchronously, for the validators' skill check. SQLite:
   * exact. PostgreSQL: from this process's writes and a list re-read every few seconds, so a workflow
   * another process created a moment ago may not be known yet.
   */
  isStored(id: string): boolean;
}

interface SummaryRow {
  id: string;
  updated_at: number;
  /** The document without its nodes, edges and annotations; null when `data` is not JSON (or too deep for SQLite's JSON functions). */
  head: string | null;
  node_count: number | null;
  /** The workflow input and output nodes (the interface), as a JSON array. */
  interface_nodes: string | null;
}

/**
 * Workflows in SQLite. The list reads only what it shows: SQLite cuts the stored JSON down to the
 * document's fields and its interface nodes, so a list does not parse and validate every node of
 * every workflow (a 1,000-node workflow took longer to decode than the rest of the request).
 */
class SqliteWorkflowRepository extends SqliteDocumentTable<Workflow> implements WorkflowRepository {
  private readonly selectSummaries: Statement<SummaryRow, [string, string]>;
  private readonly selectCallers: Statement<{ id: string; name: string }, [string, string]>;

  constructor(db: Database) {
    super(db, "workflows", WorkflowSchema);
    this.selectSummaries = db.query(`
      SELECT id, updated_at,
        CASE WHEN json_valid(data) THEN json_remove(data, '$.nodes', '$.edges', '$.annotations') END AS head,
        CASE WHEN json_valid(data) THEN json_array_length(data, '$.nodes') END AS node_count,
        CASE WHEN json_valid(data) AND json_type(data, '$.nodes') = 'array' THEN
          (SELECT json_group_array(json(node.value)) FROM json_each(data, '$.nodes') AS node WHERE node.value ->> '$.type' IN (?1, ?2))
        END AS interface_nodes
      FROM workflows ORDER BY name COLLATE NOCASE, id`);
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
    return listReadable(this.selectSummaries.all(WORKFLOW_INPUT_TYPE, WORKFLOW_OUTPUT_TYPE), (row) => {
      if (row.head === null) throw new StoredRecordInvalidError("workflows", row.id, "not JSON, or nested deeper than the 1,000 levels SQLite reads");
      // The same schema as a full read, so defaults and checks apply alike to what the list shows.
      const parsed = WorkflowSchema.safeParse({ ...JSON.parse(row.head), nodes: row.interface_nodes === null ? null : JSON.parse(row.interface_nodes) });
      if (!parsed.success) throw new StoredRecordInvalidError("workflows", row.id, parsed.error.issues[0]?.message ?? "invalid");
      const wf = parsed.data;
      return {
        id: wf.id,
        name: wf.name,
        description: wf.description,
        revision: wf.revision,
        tags: wf.tags,
        nodeCount: row.node_count ?? 0,
        updatedAt: row.updated_at,
        isSkill: isSkill(wf),
        interface: workflowInterface(wf),
      };
    });
  }
}

export function sqliteWorkflowRepository(db: Database): WorkflowRepository {
  return new SqliteWorkflowRepository(db);
}
