import { describe, expect, it } from "vitest";
import { storageOpener, type StorageHarness } from "../storage/contract/harness.ts";
import { createCredentialRepository, type StoredCredential } from "../storage/credential-repository.ts";

function credential(name: string, overrides: Partial<StoredCredential> = {}): StoredCredential {
  return { name, kind: "bearer", description: `${name} described`, secretEncrypted: `enc:${name}`, createdAt: 1_000, updatedAt: 1_000, ...overrides };
}

/** What the credential repository must do on every engine. */
export function credentialRepositoryContract(harness: StorageHarness): void {
  describe(`credential repository contract (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("saves, reads and lists credentials by name (byte order), each kind with its own fields", async () => {
      const repo = createCredentialRepository((await fresh()).sql);
      expect(await repo.list()).toEqual([]);
      await repo.save(credential("github", { kind: "header", header: "X-Api-Key" }));
      await repo.save(credential("Alpha"));
      await repo.save(credential("basic-auth", { kind: "basic", username: "ada", description: "" }));
      expect((await repo.list()).map((c) => c.name)).toEqual(["Alpha", "basic-auth", "github"]);
      expect(await repo.get("github")).toEqual(credential("github", { kind: "header", header: "X-Api-Key" }));
      expect(await repo.get("basic-auth")).toEqual(credential("basic-auth", { kind: "basic", username: "ada", description: "" }));
      expect(await repo.get("Alpha")).toEqual(credential("Alpha"));
      expect(await repo.get("alpha")).toBeUndefined();
    });

    it("save replaces the credential of that name, its old fields gone and its creation time kept as given", async () => {
      const repo = createCredentialRepository((await fresh()).sql);
      await repo.save(credential("api", { kind: "header", header: "X-Key", updatedAt: 1_000 }));
      const replaced = credential("api", { kind: "bearer", secretEncrypted: "enc:new", updatedAt: 2_000_000_000_000 });
      await repo.save(replaced);
      expect(await repo.get("api")).toEqual(replaced);
      expect(await repo.list()).toHaveLength(1);
    });

    it("delete says whether there was one", async () => {
      const repo = createCredentialRepository((await fresh()).sql);
      await repo.save(credential("api"));
      expect(await repo.delete("api")).toBe(true);
      expect(await repo.delete("api")).toBe(false);
      expect(await repo.get("api")).toBeUndefined();
    });

    it("joins Storage.transaction: a save in a body that throws is not stored", async () => {
      const storage = await fresh();
      const repo = createCredentialRepository(storage.sql);
      await expect(
        storage.transaction(async () => {
          await repo.save(credential("api"));
          expect(await repo.get("api")).toBeDefined();
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await repo.get("api")).toBeUndefined();
    });
  });
}
