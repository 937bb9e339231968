import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "./document-table.ts";
import type { SqlHandle } from "./sql-handle.ts";

export type AgentProfileRepository = DocumentRepository<AgentProfile>;

export function createAgentProfileRepository(handle: SqlHandle): AgentProfileRepository {
  return new DocumentTable<AgentProfile>(handle, "agent_profiles", AgentProfileSchema);
}
