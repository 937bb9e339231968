import type { Database } from "bun:sqlite";
import { WorkflowSchema, type Workflow } from "@weft/types";
import { SqliteDocumentTable, type DocumentRepository } from "./document-table.ts";

export type WorkflowRepository = DocumentRepository<Workflow>;

export function sqliteWorkflowRepository(db: Database): WorkflowRepository {
  return new SqliteDocumentTable<Workflow>(db, "workflows", WorkflowSchema);
}
