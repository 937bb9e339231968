import type { AgentProfile, AgentStateStore, Scene } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import type { LlmProfileTable } from "../llm/llm-profile-repository.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { ConversationTable } from "./conversation-repository.ts";
import type { AgentStepTable } from "./agent-step-repository.ts";

/** The storage agents/ (and the domains above that drive agents) needs. */
export interface AgentsStorage extends RunsStorage {
  readonly agents: DocumentRepository<AgentProfile>;
  readonly conversations: ConversationTable;
  /** What an agent needs to continue a conversation (counters, private state, a pending question). */
  readonly agentSessions: AgentStateStore;
  readonly agentSteps: AgentStepTable;
  readonly llmProfiles: LlmProfileTable;
  /** Scene documents (scenes/ owns the table): an agent's governance checks which scene claims an instance. */
  readonly scenes: DocumentRepository<Scene>;
}
