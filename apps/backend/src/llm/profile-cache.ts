import type { StoredLlmProfile } from "./llm-profile-repository.ts";

/** Profiles remembered at most: past it the memory starts over. */
const MAX_KNOWN = 1_000;
/** The key of the default profile's read. */
const DEFAULT = Symbol("default");

/**
 * The stored profiles the runtime resolves before every LLM call, remembered: a profile changes when someone saves it,
 * not per call, so an eval run's thousand cases read it once. `LlmProfileService` forgets them on each of its saves;
 * a save in another process (the queue mode's API, for a worker) through `forget`, on its announcement
 * (`../queue/settings-signal.ts`).
 */
export class ProfileReadCache {
  /** By id (or the default's read): the profile, or undefined when none is stored. */
  private readonly known = new Map<string | typeof DEFAULT, StoredLlmProfile | undefined>();
  /** Counts `forget`s: a read begun before one may hold an old profile and is not remembered. */
  private generation = 0;

  /** The profile `profileId` names (the default one without it), read by `read` unless remembered. */
  async get(profileId: string | undefined, read: () => Promise<StoredLlmProfile | undefined>): Promise<StoredLlmProfile | undefined> {
    const key = profileId ?? DEFAULT;
    if (this.known.has(key)) return this.known.get(key);
    const generation = this.generation;
    const stored = await read();
    if (generation === this.generation) {
      if (this.known.size >= MAX_KNOWN) this.known.clear();
      this.known.set(key, stored);
    }
    return stored;
  }

  forget(): void {
    this.generation++;
    this.known.clear();
  }
}
