import { describe, expect, it } from "vitest";
import type { StoredLlmProfile } from "../../llm/llm-profile-repository.ts";
import { storageOpener, type StorageHarness } from "./harness.ts";

function profile(id: string, name: string, extra: Partial<StoredLlmProfile> = {}): StoredLlmProfile {
  return {
    id,
    name,
    provider: "openai-compatible",
    baseUrl: "http://127.0.0.1:9/v1",
    model: "m",
    timeoutMs: 30_000,
    passBackReasoning: false,
    maxRetries: 2,
    isDefault: false,
    healthStatus: "unknown",
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...extra,
  };
}

export function settingsContract(harness: StorageHarness): void {
  describe(`storage contract (${harness.engine}): llm profiles`, () => {
    const { fresh } = storageOpener(harness);

    it("save every field, keep one default, list the default first then by name, set health, delete", async () => {
      const storage = await fresh();
      const full = profile("p1", "beta", { apiKeyEncrypted: "enc", apiKeyMasked: "sk-…abcd", temperature: 0.25, contextWindow: 128_000, passBackReasoning: true, isDefault: true, lastTestedAt: 5 });
      await storage.llmProfiles.save(full);
      await storage.llmProfiles.save(profile("p2", "Alpha"));
      await storage.llmProfiles.save(profile("p3", "gamma", { provider: "demo" }));
      expect(await storage.llmProfiles.get("p1")).toEqual(full);
      expect(await storage.llmProfiles.get("p2")).toEqual(profile("p2", "Alpha"));
      expect((await storage.llmProfiles.list()).map((p) => p.id)).toEqual(["p1", "p2", "p3"]);
      expect((await storage.llmProfiles.getDefault())?.id).toBe("p1");
      await storage.llmProfiles.save(profile("p3", "gamma", { provider: "demo", isDefault: true }));
      expect((await storage.llmProfiles.getDefault())?.id).toBe("p3");
      expect((await storage.llmProfiles.list()).filter((p) => p.isDefault).map((p) => p.id)).toEqual(["p3"]);
      await storage.llmProfiles.setHealth("p2", "ok", 1234);
      expect(await storage.llmProfiles.get("p2")).toMatchObject({ healthStatus: "ok", lastTestedAt: 1234 });
      expect(await storage.llmProfiles.delete("p2")).toBe(true);
      expect(await storage.llmProfiles.delete("p2")).toBe(false);
      expect(await storage.llmProfiles.get("p2")).toBeUndefined();
    });
  });

  describe(`storage contract (${harness.engine}): settings and meta`, () => {
    const { fresh } = storageOpener(harness);

    it("settings keep one JSON value per key with its time; meta one string per key", async () => {
      const storage = await fresh();
      expect(await storage.settings.get("permissions")).toBeUndefined();
      const at = await storage.settings.set("permissions", { rules: [{ tool: "shell", allow: true }], n: 1.5, none: null });
      expect(await storage.settings.get("permissions")).toEqual({ value: { rules: [{ tool: "shell", allow: true }], n: 1.5, none: null }, updatedAt: at });
      await storage.settings.set("permissions", ["replaced"]);
      expect((await storage.settings.get("permissions"))?.value).toEqual(["replaced"]);
      expect(await storage.meta.get("examples")).toBeUndefined();
      await storage.meta.set("examples", "loaded");
      await storage.meta.set("examples", "loaded twice");
      expect(await storage.meta.get("examples")).toBe("loaded twice");
    });
  });
}
