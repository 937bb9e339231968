import type { AgentsStorage } from "../agents/agents-storage.ts";
import type { SettingsRepository } from "../settings/settings-repository.ts";
import type { MetaRepository } from "../seed/meta-repository.ts";

/** The storage the engine's services and the workers run on: every core repository. */
export interface RuntimeStorage extends AgentsStorage {
  readonly settings: SettingsRepository;
  readonly meta: MetaRepository;
}
