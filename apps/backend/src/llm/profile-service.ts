import { LlmError, type LlmProfile, type LlmProfileResolver, type Logger } from "@weft/types";
import { OpenAiCompatibleProvider } from "@weft/agent-runtime";
import type { LlmProfileRepository, StoredLlmProfile } from "../storage/llm-profile-repository.ts";
import { maskSecret, SecretDecryptError, type SecretBox } from "../secrets/secret-box.ts";
import { ApiError, notFound } from "../api/errors.ts";
import { DEMO_PROFILE_ID, demoProfile } from "./demo-profile.ts";
import type { CreateLlmProfile, LlmProfileView, UpdateLlmProfile } from "./profile-schemas.ts";

export interface ConnectionTestView {
  ok: boolean;
  latencyMs: number;
  model?: string;
  error?: { code: string; message: string; hint: string };
}

/** Where the embedded demo LLM listens, once it does. */
export interface DemoEndpoint {
  baseUrl(): string | undefined;
}

/**
 * LLM profiles: CRUD with the key encrypted at rest and shown only masked, the connection test,
 * and the resolver that hands the runtime a usable profile (key decrypted in memory only).
 */
export class LlmProfileService {
  constructor(
    private readonly repo: LlmProfileRepository,
    private readonly box: SecretBox,
    private readonly demo: DemoEndpoint,
    private readonly log: Logger,
  ) {}

  /** Makes sure the demo profile exists and some profile is the default. */
  async ensureDefaults(): Promise<void> {
    const profiles = await this.repo.list();
    if (profiles.length === 0) {
      await this.repo.save(demoProfile(Date.now()));
      return;
    }
    if (!profiles.some((p) => p.isDefault)) {
      const fallback = profiles.find((p) => p.id === DEMO_PROFILE_ID) ?? profiles[0];
      await this.repo.save({ ...fallback, isDefault: true, updatedAt: Date.now() });
    }
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
    if (await this.repo.get(id)) throw new ApiError("ALREADY_EXISTS", `An LLM profile with the id "${id}" exists; pick another id or update it with PUT /api/llm-profiles/${id}.`, { id });
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
    if (input.apiKey !== undefined) this.setKey(profile, input.apiKey);
    await this.repo.save(profile);
    return this.view(profile);
  }

  async update(id: string, patch: UpdateLlmProfile): Promise<LlmProfileView> {
    const current = await this.require(id);
    if (current.provider === "demo" && (patch.baseUrl !== undefined || patch.model !== undefined || (patch.apiKey !== undefined && patch.apiKey !== null))) {
      throw new ApiError("VALIDATION_FAILED", "The built-in demo profile's address, model and key are managed by Weft; create a new profile (POST /api/llm-profiles) for another endpoint.", {
        issues: [{ path: ["baseUrl"], message: "read-only on the demo profile", code: "custom" }],
      });
    }
    if (patch.isDefault === false && current.isDefault) {
      throw new ApiError("VALIDATION_FAILED", "One profile is always the default: make another profile the default (isDefault: true on it) instead.", {
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
    if (patch.apiKey === null) {
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
    return this.view(next);
  }

  async delete(id: string): Promise<LlmProfileView> {
    const current = await this.require(id);
    if (current.provider === "demo") {
      throw new ApiError("CONFLICT", "The built-in demo profile cannot be deleted; make another profile the default instead.", { id });
    }
    await this.repo.delete(id);
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
    const scrub = (text: string) => (profile.apiKey ? text.split(profile.apiKey).join(maskSecret(profile.apiKey)) : text);
    this.log.info("LLM connection test failed", { profileId: id, code: result.error.code });
    return { ok: false, latencyMs: result.latencyMs, error: { code: result.error.code, message: scrub(result.error.message), hint: scrub(result.error.hint) } };
  }

  /** The runtime's view of the profiles: the key decrypted, the demo LLM's current address filled in. */
  resolver(): LlmProfileResolver {
    return {
      resolve: async (profileId?: string) => {
        const stored = profileId === undefined ? await this.repo.getDefault() : await this.repo.get(profileId);
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

  private setKey(profile: StoredLlmProfile, apiKey: string): void {
    profile.apiKeyEncrypted = this.box.encrypt(apiKey, profile.id);
    profile.apiKeyMasked = maskSecret(apiKey);
  }

  private async freshId(name: string): Promise<string> {
    const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48) || "profile";
    let id = base;
    for (let n = 2; await this.repo.get(id); n++) id = `${base}-${n}`;
    return id;
  }
}
