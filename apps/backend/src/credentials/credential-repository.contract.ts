import { describe, expect, it } from "vitest";
import { storageOpener, type StorageHarness } from "../testing/storage-contract/harness.ts";
import { CredentialTable, type StoredCredential } from "./credential-repository.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";

function credential(name: string, overrides: Partial<StoredCredential> = {}): StoredCredential {
  return {
    name,
    kind: "bearer",
    description: `${name} described`,
    hosts: [`https://${name.toLowerCase()}.example.com`],
    roles: ["owner"],
    secretEncrypted: `enc:${name}`,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  };
}

/** A row as a Weft before credential binding wrote it: no hosts, no roles. */
async function insertLegacyRow(sql: SqlHandle, name: string): Promise<void> {
  switch (sql.engine) {
    case "sqlite":
      sql.db.query("INSERT INTO credentials (name, kind, description, secret_encrypted, created_at, updated_at) VALUES (?, 'bearer', '', 'enc:old', 1, 1)").run(name);
      return;
    case "postgres":
      await sql.current()`INSERT INTO credentials (name, kind, description, secret_encrypted, created_at, updated_at) VALUES (${name}, 'bearer', '', 'enc:old', 1, 1)`;
      return;
    default: {
      const never: never = sql;
      return never;
    }
  }
}

/** What the credential repository must do on every engine. */
export function credentialRepositoryContract(harness: StorageHarness): void {
  describe(`credential repository contract (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("saves, reads and lists credentials by name (byte order), each kind with its own fields", async () => {
      const repo = new CredentialTable(await fresh());
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
      const repo = new CredentialTable(await fresh());
      await repo.save(credential("api", { kind: "header", header: "X-Key", updatedAt: 1_000 }));
      const replaced = credential("api", { kind: "bearer", secretEncrypted: "enc:new", updatedAt: 2_000_000_000_000 });
      await repo.save(replaced);
      expect(await repo.get("api")).toEqual(replaced);
      expect(await repo.list()).toHaveLength(1);
    });

    it("keeps the hosts and roles a credential is bound to, and reads a row stored before binding as bound nowhere, for owners", async () => {
      const storage = await fresh();
      const repo = new CredentialTable(storage);
      const bound = credential("svc", { hosts: ["https://api.example.com", "http://127.0.0.1:8080/v1"], roles: ["owner", "editor"] });
      await repo.save(bound);
      expect(await repo.get("svc")).toEqual(bound);
      await repo.save({ ...bound, hosts: ["https://other.example.com"], roles: ["editor"] });
      expect(await repo.get("svc")).toMatchObject({ hosts: ["https://other.example.com"], roles: ["editor"] });
      await insertLegacyRow(storage.sql, "old");
      expect(await repo.get("old")).toMatchObject({ name: "old", hosts: [], roles: ["owner"] });
    });

    it("delete says whether there was one", async () => {
      const repo = new CredentialTable(await fresh());
      await repo.save(credential("api"));
      expect(await repo.delete("api")).toBe(true);
      expect(await repo.delete("api")).toBe(false);
      expect(await repo.get("api")).toBeUndefined();
    });

    it("joins Storage.transaction: a save in a body that throws is not stored", async () => {
      const storage = await fresh();
      const repo = new CredentialTable(storage);
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
