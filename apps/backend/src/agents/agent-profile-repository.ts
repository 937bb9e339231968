import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "../storage/document-table.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";

export type AgentProfileRepository = DocumentRepository<AgentProfile>;

export function createAgentProfileRepository(handle: SqlHandle): AgentProfileRepository {
  return new DocumentTable<AgentProfile>(handle, "agent_profiles", AgentProfileSchema);
}
