import { describe, expect, it } from "vitest";
import { storageEngines } from "../testing/engine-harnesses.ts";
import { storageOpener } from "../testing/storage-contract/harness.ts";
import type { StoredLlmProfile } from "./llm-profile-repository.ts";

const plain: StoredLlmProfile = {
  id: "p1",
  name: "Profile",
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
};

for (const harness of storageEngines()) {
  describe(`LLM profile repository (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("stores every optional field and prices, and a profile saved again without them keeps none of the old values", async () => {
      const storage = await fresh();
      const full: StoredLlmProfile = {
        ...plain,
        apiKeyEncrypted: "enc",
        apiKeyMasked: "sk-…abcd",
        temperature: 0.25,
        contextWindow: 128_000,
        prices: { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 },
        lastTestedAt: 5,
      };
      await storage.llmProfiles.save(full);
      expect(await storage.llmProfiles.get("p1")).toEqual(full);
      await storage.llmProfiles.save({ ...plain, createdAt: 1, updatedAt: 1_700_000_000_001 });
      // The creation time stays the first save's.
      expect(await storage.llmProfiles.get("p1")).toEqual({ ...plain, updatedAt: 1_700_000_000_001 });
      await storage.llmProfiles.save({ ...plain, prices: { outputPerMillion: 3 } });
      expect((await storage.llmProfiles.get("p1"))?.prices).toEqual({ outputPerMillion: 3 });
    });
  });
}
