import type { Scene } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import type { LlmProfileRepository } from "../llm/llm-profile-repository.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { AgentProfileRepository } from "./agent-profile-repository.ts";
import type { ConversationRepository } from "./conversation-repository.ts";
import type { AgentSessionRepository } from "./agent-session-repository.ts";
import type { AgentStepRepository } from "./agent-step-repository.ts";

/** The storage agents/ (and the domains above that drive agents) needs. */
export interface AgentsStorage extends RunsStorage {
  readonly agents: AgentProfileRepository;
  readonly conversations: ConversationRepository;
  readonly agentSessions: AgentSessionRepository;
  readonly agentSteps: AgentStepRepository;
  readonly llmProfiles: LlmProfileRepository;
  /** Scene documents (scenes/ owns the table): an agent's governance checks which scene claims an instance. */
  readonly scenes: DocumentRepository<Scene>;
}
