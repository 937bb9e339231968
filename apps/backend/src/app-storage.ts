import { AgentProfileSchema, SceneSchema, type AgentProfile, type Logger, type Scene } from "@weft/types";
import { ensurePrivateDataDir } from "./storage/private-data-dir.ts";
import { openStorage, type StorageEngine, type StorageOptions } from "./storage/storage.ts";
import { DocumentTable } from "./storage/document-table.ts";
import { journalRepositories } from "./events/write-batch.ts";
import { WorkflowTable } from "./workflows/workflow-repository.ts";
import { ConversationTable } from "./agents/conversation-repository.ts";
import { AgentSessionTable } from "./agents/agent-session-repository.ts";
import { AgentStepTable } from "./agents/agent-step-repository.ts";
import { LlmProfileTable } from "./llm/llm-profile-repository.ts";
import { SettingsTableRepository, type SettingsRepository } from "./settings/settings-repository.ts";
import { MetaTable } from "./seed/meta-repository.ts";
import { PayloadStore } from "./events/payload-store.ts";
import { MIGRATIONS } from "./schema.ts";
import type { AgentsStorage } from "./agents/agents-storage.ts";

/**
 * The server's storage: the engine with every domain's core repositories on it, which is what the runtime's services
 * and workers run on. Each domain types against the narrow storage it needs (e.g. `JournalStorage`, `AgentsStorage`);
 * this satisfies them all.
 */
export interface Storage extends AgentsStorage {
  readonly settings: SettingsRepository;
  readonly meta: MetaTable;
}

/** Every core repository on `engine`; closing it stops the workflows' id listener, then the engine. */
async function composeStorage(engine: StorageEngine): Promise<Storage> {
  const workflows = new WorkflowTable(engine);
  const storage: Storage = {
    ...engine,
    ...journalRepositories(engine),
    workflows,
    agents: new DocumentTable<AgentProfile>(engine, "agent_profiles", AgentProfileSchema),
    scenes: new DocumentTable<Scene>(engine, "scenes", SceneSchema),
    llmProfiles: new LlmProfileTable(engine),
    meta: new MetaTable(engine),
    conversations: new ConversationTable(engine),
    agentSessions: new AgentSessionTable(engine),
    agentSteps: new AgentStepTable(engine),
    settings: new SettingsTableRepository(engine),
    async close() {
      await workflows.close();
      await engine.close();
    },
  };
  await workflows.start();
  return storage;
}

/** Opens the storage the options select (`openStorage`), migrated, with every core repository. */
export function openAppStorage(options: StorageOptions): Promise<Storage> {
  return openStorage(options, composeStorage);
}

/**
 * The storage an API process and a `weft worker` open alike, with every module's tables (MIGRATIONS) in a private data
 * folder (ensurePrivateDataDir, `log` told when it cannot be): large values of runs, observations and events are stored
 * once and referenced (`payloads`, which the event journal writes through), and every reader of `storage` gets them
 * whole. The caller closes `storage`.
 */
export async function openProcessStorage(options: Omit<StorageOptions, "migrations"> & { log: Logger }): Promise<{ storage: Storage; payloads: PayloadStore }> {
  ensurePrivateDataDir(options.dataDir, options.log);
  const storage = await openAppStorage({ ...options, migrations: MIGRATIONS });
  return { storage, payloads: new PayloadStore(storage) };
}
