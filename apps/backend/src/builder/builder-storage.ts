import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { MetaTable } from "../seed/meta-repository.ts";

/** The storage the Builder needs: the documents it edits, conversations, LLM profiles and the installation's facts. */
export interface BuilderStorage extends AgentsStorage {
  readonly meta: MetaTable;
}
