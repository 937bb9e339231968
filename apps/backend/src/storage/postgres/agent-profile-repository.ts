import { AgentProfileSchema, type AgentProfile } from "@weft/types";
import type { AgentProfileRepository } from "../agent-profile-repository.ts";
import type { PostgresConnection } from "./connection.ts";
import { PostgresDocumentTable } from "./document-table.ts";

export function postgresAgentProfileRepository(pg: PostgresConnection): AgentProfileRepository {
  return new PostgresDocumentTable<AgentProfile>(pg, "agent_profiles", AgentProfileSchema);
}
