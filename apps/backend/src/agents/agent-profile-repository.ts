import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "../storage/document-table.ts";
import type { StorageEngine } from "../storage/storage.ts";

export type AgentProfileRepository = DocumentRepository<AgentProfile>;

export function createAgentProfileRepository(engine: StorageEngine): AgentProfileRepository {
  return new DocumentTable<AgentProfile>(engine, "agent_profiles", AgentProfileSchema);
}
