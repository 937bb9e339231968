import { z } from "zod";
import { LlmError, type LlmProfile, type LlmProfileResolver, type Logger, type SecretRedactor } from "@weft/types";
import { OpenAiCompatibleProvider } from "@weft/agent-runtime";
import type { LlmProfileTable, StoredLlmProfile } from "./llm-profile-repository.ts";
import { maskSecret, SecretDecryptError, type SecretBox } from "../secrets/secret-box.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { DEMO_PROFILE_ID } from "@weft/agent-runtime";
import { demoProfile } from "./demo-profile.ts";
import { ReadCache } from "../read-cache.ts";
import { LlmProfileViewSchema, pricesOf, type CreateLlmProfile, type LlmProfileView, type UpdateLlmProfile } from "./profile-schemas.ts";

export const ConnectionTestViewSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  model: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string() }).optional(),
});
export type ConnectionTestView = z.output<typeof ConnectionTestViewSchema>;

/** The answer to a change: the profile, and whether its stored key was dropped because the endpoint moved. */
export const LlmProfileUpdateViewSchema = z.object({
  profile: LlmProfileViewSchema,
  apiKeyCleared: z.boolean(),
  /** What the user must do now, when the key was cleared. */
  notice: z.string().optional(),
});
export type LlmProfileUpdateView = z.output<typeof LlmProfileUpdateViewSchema>;

/** Profiles `resolver()` remembers at most: past it the memory starts over. */
const MAX_KNOWN = 1_000;
/** The key of the default profile's read. */
const DEFAULT = Symbol("default");

/** Where the embedded demo LLM listens, once it does. */
export interface DemoEndpoint {
  baseUrl(): string | undefined;
}

/**
 * LLM profiles: CRUD with the key encrypted at rest and shown only masked, the connection test,
 * and the resolver that hands the runtime a usable profile (key decrypted in memory only). Every
 * stored key is kept in the redactor, so wherever it is echoed (a provider's error) it is replaced.
 */
export class LlmProfileService {
  /** What `resolver()` read (by id, or DEFAULT for the default's read), until a save. */
  private readonly reads = new ReadCache<string | typeof DEFAULT, StoredLlmProfile>(MAX_KNOWN);

  constructor(
    private readonly repo: LlmProfileTable,
    private readonly box: SecretBox,
    private readonly demo: DemoEndpoint,
    private readonly redactor: SecretRedactor,
    private readonly log: Logger,
  ) {}

  /** Hands every stored key to the redactor (at start; changes keep it current after that). */
  async redactStoredKeys(): Promise<void> {
    for (const profile of await this.repo.list()) this.remember(profile);
  }

  /** Makes sure the demo profile exists and some profile is the default. */
  async ensureDefaults(): Promise<void> {
    const profiles = await this.repo.list();
    if (profiles.length === 0) {
      await this.repo.save(demoProfile(Date.now()));
      await this.reads.saved();
      return;
    }
    if (!profiles.some((p) => p.isDefault)) {
      const fallback = profiles.find((p) => p.id === DEMO_PROFILE_ID) ?? profiles[0];
      await this.repo.save({ ...fallback, isDefault: true, updatedAt: Date.now() });
      await this.reads.saved();
    }
  }

  /** Calls `listener` after each save in this process (not after a `forgetReads`); the save answers once it is done. */
  onSaved(listener: () => Promise<void>): void {
    this.reads.onSaved(listener);
  }

  /** Profiles were saved elsewhere: the runtime's next calls read them again. */
  forgetReads(): void {
    this.reads.forget();
  }

  view(p: StoredLlmProfile): LlmProfileView {
    const view: LlmProfileView = {
      id: p.id,
      name: p.name,
      provider: p.provider,
      baseUrl: p.provider === "demo" ? (this.demo.baseUrl() ?? "") : p.baseUrl,
      model: p.model,
      timeoutMs: p.timeoutMs,
      passBackReasoning: p.passBackReasoning,
      maxRetries: p.maxRetries,
      isDefault: p.isDefault,
      hasApiKey: p.apiKeyEncrypted !== undefined,
      apiKeyMasked: p.apiKeyMasked ?? null,
      healthStatus: p.healthStatus,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    };
    if (p.temperature !== undefined) view.temperature = p.temperature;
    if (p.contextWindow !== undefined) view.contextWindow = p.contextWindow;
    if (p.prices !== undefined) view.prices = p.prices;
    if (p.lastTestedAt !== undefined) view.lastTestedAt = p.lastTestedAt;
    return view;
  }

  async list(): Promise<LlmProfileView[]> {
    return (await this.repo.list()).map((p) => this.view(p));
  }

  private async require(id: string): Promise<StoredLlmProfile> {
    const stored = await this.repo.get(id);
    if (!stored) throw notFound("LLM profile", id, "GET /api/llm-profiles lists them.");
    return stored;
  }

  async get(id: string): Promise<LlmProfileView> {
    return this.view(await this.require(id));
  }

  async create(input: CreateLlmProfile): Promise<LlmProfileView> {
    const id = input.id ?? (await this.freshId(input.name));
    if (await this.repo.get(id)) throw new ServiceError("ALREADY_EXISTS", `An LLM profile with the id "${id}" exists; pick another id or update it with PUT /api/llm-profiles/${id}.`, { id });
    const now = Date.now();
    const profile: StoredLlmProfile = {
      id,
      name: input.name,
      provider: "openai-compatible",
      baseUrl: input.baseUrl,
      model: input.model,
      timeoutMs: input.timeoutMs,
      passBackReasoning: input.passBackReasoning,
      maxRetries: input.maxRetries,
      isDefault: input.isDefault,
      healthStatus: "unknown",
      createdAt: now,
      updatedAt: now,
    };
    if (input.temperature != null) profile.temperature = input.temperature;
    if (input.contextWindow != null) profile.contextWindow = input.contextWindow;
    const prices = pricesOf(input.prices ?? null);
    if (prices) profile.prices = prices;
    if (input.apiKey !== undefined) this.setKey(profile, input.apiKey);
    await this.repo.save(profile);
    this.remember(profile);
    await this.reads.saved();
    return this.view(profile);
  }

  async update(id: string, patch: UpdateLlmProfile): Promise<LlmProfileUpdateView> {
    const current = await this.require(id);
    if (current.provider === "demo" && (patch.baseUrl !== undefined || patch.model !== undefined || (patch.apiKey !== undefined && patch.apiKey !== null))) {
      throw new ServiceError("VALIDATION_FAILED", "The built-in demo profile's address, model and key are managed by Weft; create a new profile (POST /api/llm-profiles) for another endpoint.", {
        issues: [{ path: ["baseUrl"], message: "read-only on the demo profile", code: "custom" }],
      });
    }
    if (patch.isDefault === false && current.isDefault) {
      throw new ServiceError("VALIDATION_FAILED", "One profile is always the default: make another profile the default (isDefault: true on it) instead.", {
        issues: [{ path: ["isDefault"], message: "cannot unset the only default", code: "custom" }],
      });
    }
    const next: StoredLlmProfile = { ...current, updatedAt: Date.now() };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.baseUrl !== undefined) next.baseUrl = patch.baseUrl;
    if (patch.model !== undefined) next.model = patch.model;
    if (patch.timeoutMs !== undefined) next.timeoutMs = patch.timeoutMs;
    if (patch.passBackReasoning !== undefined) next.passBackReasoning = patch.passBackReasoning;
    if (patch.maxRetries !== undefined) next.maxRetries = patch.maxRetries;
    if (patch.isDefault !== undefined) next.isDefault = patch.isDefault;
    if (patch.temperature !== undefined) {
      if (patch.temperature === null) delete next.temperature;
      else next.temperature = patch.temperature;
    }
    if (patch.contextWindow !== undefined) {
      if (patch.contextWindow === null) delete next.contextWindow;
      else next.contextWindow = patch.contextWindow;
    }
    if (patch.prices !== undefined) {
      // The prices sent replace the stored ones whole: a price left out is unknown from now on.
      const prices = pricesOf(patch.prices);
      if (prices) next.prices = prices;
      else delete next.prices;
    }
    // A key belongs to the endpoint it was entered for: moved without a new key, it is dropped, never sent elsewhere.
    const moved = patch.baseUrl !== undefined && !sameEndpoint(patch.baseUrl, current.baseUrl);
    const apiKeyCleared = moved && patch.apiKey === undefined && current.apiKeyEncrypted !== undefined;
    if (patch.apiKey === null || apiKeyCleared) {
      delete next.apiKeyEncrypted;
      delete next.apiKeyMasked;
    } else if (patch.apiKey !== undefined) {
      this.setKey(next, patch.apiKey);
    }
    // What the last test proved no longer holds once the endpoint or the key changed.
    if (patch.baseUrl !== undefined || patch.model !== undefined || patch.apiKey !== undefined) {
      next.healthStatus = "unknown";
      delete next.lastTestedAt;
    }
    await this.repo.save(next);
    this.remember(next);
    await this.reads.saved();
    if (apiKeyCleared) this.log.info("LLM profile moved to another address; its key was cleared", { profileId: id });
    return {
      profile: this.view(next),
      apiKeyCleared,
      ...(apiKeyCleared ? { notice: `The base URL changed, so the stored API key was cleared (a key is never sent to another address). Enter the API key again for ${next.baseUrl}.` } : {}),
    };
  }

  async delete(id: string): Promise<LlmProfileView> {
    const current = await this.require(id);
    if (current.provider === "demo") {
      throw new ServiceError("CONFLICT", "The built-in demo profile cannot be deleted; make another profile the default instead.", { id });
    }
    await this.repo.delete(id);
    this.redactor.forget(id);
    await this.reads.saved();
    if (current.isDefault) await this.ensureDefaults();
    return this.view({ ...current, isDefault: false });
  }

  /** A one-token request with the stored settings; the outcome is also kept as the profile's health. */
  async test(id: string): Promise<ConnectionTestView> {
    const stored = await this.require(id);
    let profile: LlmProfile;
    try {
      profile = this.toRuntime(stored);
    } catch (error) {
      if (error instanceof LlmError) return { ok: false, latencyMs: 0, error: { code: error.code, message: error.message, hint: error.hint } };
      throw error;
    }
    const result = await OpenAiCompatibleProvider.fromProfile(profile).testConnection();
    await this.repo.setHealth(id, result.ok ? "ok" : "failed", Date.now());
    if (result.ok) return { ok: true, latencyMs: result.latencyMs, model: result.model };
    // A provider may echo what it was sent; the key must not travel back to the client.
    this.log.info("LLM connection test failed", { profileId: id, code: result.error.code });
    const { code, message, hint } = result.error;
    return { ok: false, latencyMs: result.latencyMs, error: { code, message: this.redactor.text(message), hint: this.redactor.text(hint) } };
  }

  /** The runtime's view of the profiles: the key decrypted, the demo LLM's current address filled in. */
  resolver(): LlmProfileResolver {
    return {
      resolve: async (profileId?: string) => {
        // Read once until a save (`saved`, or `forgetReads` for one elsewhere), not before every call.
        const stored = await this.reads.get(profileId ?? DEFAULT, () => (profileId === undefined ? this.repo.getDefault() : this.repo.get(profileId)));
        return stored ? this.toRuntime(stored) : undefined;
      },
    };
  }

  private toRuntime(p: StoredLlmProfile): LlmProfile {
    const baseUrl = p.provider === "demo" ? this.demo.baseUrl() : p.baseUrl;
    if (!baseUrl) {
      throw new LlmError({ code: "NETWORK", message: "The built-in demo LLM is not running in this server.", hint: "Start the server with the demo LLM enabled, or pick another LLM profile." });
    }
    const profile: LlmProfile = {
      id: p.id,
      name: p.name,
      baseUrl,
      model: p.model,
      timeoutMs: p.timeoutMs,
      passBackReasoning: p.passBackReasoning,
      maxRetries: p.maxRetries,
    };
    if (p.temperature !== undefined) profile.temperature = p.temperature;
    if (p.contextWindow !== undefined) profile.contextWindow = p.contextWindow;
    if (p.prices !== undefined) profile.prices = p.prices;
    if (p.apiKeyEncrypted !== undefined) {
      try {
        profile.apiKey = this.box.decrypt(p.apiKeyEncrypted, p.id);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        throw new LlmError({ code: "AUTH", message: error.message, hint: `Enter the API key of the LLM profile "${p.name}" again (Settings → LLM profiles).` });
      }
    }
    return profile;
  }

  /** Keeps the redactor in step with what is stored: the profile's key under its current name, or nothing. */
  private remember(profile: StoredLlmProfile): void {
    if (profile.apiKeyEncrypted === undefined) return this.redactor.forget(profile.id);
    try {
      this.redactor.set(profile.id, profile.name, [this.box.decrypt(profile.apiKeyEncrypted, profile.id)]);
    } catch (error) {
      // A key the master key cannot read is never sent anywhere, so there is nothing to redact.
      if (!(error instanceof SecretDecryptError)) throw error;
      this.redactor.forget(profile.id);
    }
  }

  private setKey(profile: StoredLlmProfile, apiKey: string): void {
    profile.apiKeyEncrypted = this.box.encrypt(apiKey, profile.id);
    profile.apiKeyMasked = maskSecret(apiKey);
  }

  private async freshId(name: string): Promise<string> {
    const base =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 48) || "profile";
    let id = base;
    for (let n = 2; await this.repo.get(id); n++) id = `${base}-${n}`;
    return id;
  }
}

/** Whether two base URLs name the same endpoint (a trailing slash aside). */
function sameEndpoint(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}
