import type { Database } from "bun:sqlite";
import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import { SqliteDocumentTable, type DocumentRepository } from "./document-table.ts";

export type AgentProfileRepository = DocumentRepository<AgentProfile>;

export function sqliteAgentProfileRepository(db: Database): AgentProfileRepository {
  return new SqliteDocumentTable<AgentProfile>(db, "agent_profiles", AgentProfileSchema);
}
