import { afterEach, describe, expect, it } from "vitest";
import type { AccountRepository, UserRecord } from "../account-records.ts";

/** An empty accounts store of the engine under test, its tables migrated. */
export interface AccountsHarness {
  engine: "sqlite" | "postgres";
  fresh(): Promise<{ repository: AccountRepository; close(): Promise<void>; failUserDeletes(): Promise<void> }>;
}

const user = (id: string, username: string, role: UserRecord["role"] = "editor", at = 1000): UserRecord => ({
  id,
  username,
  name: username.toUpperCase(),
  role,
  passwordHash: `hash-of-${username}`,
  createdAt: at,
  updatedAt: at,
});

/** The accounts repository's contract: run unchanged on SQLite and PostgreSQL. */
export function accountsContract(harness: AccountsHarness): void {
  describe(`accounts contract (${harness.engine})`, () => {
    const open: Array<() => Promise<void>> = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((close) => close()));
    });
    const fresh = async () => {
      const store = await harness.fresh();
      open.push(store.close);
      return store;
    };

    it("stores users, finds them by id and username, lists them oldest first, refuses a taken username", async () => {
      const repo = (await fresh()).repository;
      await repo.insertUser(user("u2", "bea", "viewer", 2000));
      await repo.insertUser(user("u1", "ann", "editor", 1000));
      expect(await repo.getUser("u1")).toEqual(user("u1", "ann", "editor", 1000));
      expect((await repo.getUserByUsername("bea"))?.id).toBe("u2");
      expect(await repo.getUser("nobody")).toBeUndefined();
      expect(await repo.getUserByUsername("nobody")).toBeUndefined();
      expect((await repo.listUsers()).map((u) => u.username)).toEqual(["ann", "bea"]);
      await expect(repo.insertUser(user("u3", "ann"))).rejects.toThrow();
      expect(await repo.listUsers()).toHaveLength(2);
    });

    it("inserts a user once when several callers race to create it (processes starting at once)", async () => {
      const repo = (await fresh()).repository;
      // Rounds of racers, so a race lost only now and then (PostgreSQL checking the username before the id) shows here.
      for (let round = 0; round < 20; round++) {
        const racer = user(`racer-${round}`, `racer-${round}`);
        const inserted = await Promise.all(Array.from({ length: 8 }, () => repo.insertUserIfAbsent(racer)));
        expect(inserted.filter(Boolean)).toHaveLength(1);
      }
      expect(await repo.insertUserIfAbsent(user("owner", "owner", "owner"))).toBe(true);
      expect(await repo.insertUserIfAbsent(user("owner", "owner", "viewer"))).toBe(false);
      expect(await repo.getUser("owner")).toMatchObject({ role: "owner" });
      await expect(repo.insertUserIfAbsent(user("other", "owner"))).rejects.toThrow();
      expect(await repo.listUsers()).toHaveLength(21);
    });

    it("updates only the given fields, and says when there is no such user", async () => {
      const repo = (await fresh()).repository;
      await repo.insertUser(user("u1", "ann"));
      expect(await repo.updateUser("u1", { role: "owner" }, 5000)).toBe(true);
      expect(await repo.getUser("u1")).toMatchObject({ role: "owner", name: "ANN", passwordHash: "hash-of-ann", updatedAt: 5000 });
      expect(await repo.updateUser("u1", { passwordHash: "new", name: "Ann B" }, 6000)).toBe(true);
      expect(await repo.getUser("u1")).toMatchObject({ role: "owner", name: "Ann B", passwordHash: "new" });
      expect(await repo.updateUser("nobody", { role: "viewer" }, 7000)).toBe(false);
    });

    it("finds a session's user until it expires or is deleted; a role change shows at once", async () => {
      const repo = (await fresh()).repository;
      await repo.insertUser(user("u1", "ann"));
      await repo.insertSession({ hash: "h1", userId: "u1", createdAt: 1000, expiresAt: 2000 });
      await repo.insertSession({ hash: "h2", userId: "u1", createdAt: 1000, expiresAt: 9000 });
      expect((await repo.sessionUser("h1", 1500))?.id).toBe("u1");
      expect(await repo.sessionUser("h1", 2000)).toBeUndefined();
      expect(await repo.sessionUser("nope", 1500)).toBeUndefined();
      await repo.updateUser("u1", { role: "viewer" }, 1600);
      expect((await repo.sessionUser("h2", 1700))?.role).toBe("viewer");
      await repo.deleteSession("h2");
      expect(await repo.sessionUser("h2", 1700)).toBeUndefined();
      await repo.insertSession({ hash: "h3", userId: "u1", createdAt: 1000, expiresAt: 9000 });
      expect(await repo.deleteExpiredSessions(2000)).toBe(1);
      expect((await repo.sessionUser("h3", 1700))?.id).toBe("u1");
      expect(await repo.deleteSessionsOf("u1")).toBe(1);
      expect(await repo.sessionUser("h3", 1700)).toBeUndefined();
    });

    it("finds a token's user, records its use at most once a minute, lists and deletes a user's own tokens only", async () => {
      const repo = (await fresh()).repository;
      await repo.insertUser(user("u1", "ann"));
      await repo.insertUser(user("u2", "bea"));
      await repo.insertToken({ id: "t1", userId: "u1", name: "ci", hash: "th1", createdAt: 1000, lastUsedAt: null });
      await repo.insertToken({ id: "t2", userId: "u2", name: "cli", hash: "th2", createdAt: 1000, lastUsedAt: null });
      expect(await repo.tokenUser("th1", 100_000)).toMatchObject({ tokenId: "t1", user: { id: "u1" } });
      await repo.tokenUser("th1", 130_000);
      expect((await repo.listTokens("u1")).map((t) => [t.id, t.name, t.lastUsedAt])).toEqual([["t1", "ci", 100_000]]);
      await repo.tokenUser("th1", 161_000);
      expect((await repo.listTokens("u1"))[0].lastUsedAt).toBe(161_000);
      expect(await repo.tokenUser("unknown", 1)).toBeUndefined();
      expect(await repo.deleteToken("u1", "t2")).toBe(false);
      expect(await repo.tokenUser("th2", 1)).toBeDefined();
      expect(await repo.deleteToken("u2", "t2")).toBe(true);
      expect(await repo.tokenUser("th2", 1)).toBeUndefined();
      await expect(repo.insertToken({ id: "t3", userId: "u2", name: "dup", hash: "th1", createdAt: 1, lastUsedAt: null })).rejects.toThrow();
      await repo.insertToken({ id: "t4", userId: "u1", name: "laptop", hash: "th4", createdAt: 1000, lastUsedAt: null });
      await repo.insertToken({ id: "t5", userId: "u2", name: "other", hash: "th5", createdAt: 1000, lastUsedAt: null });
      expect(await repo.deleteTokensOf("u1")).toBe(2);
      expect(await repo.tokenUser("th1", 200_000)).toBeUndefined();
      expect(await repo.tokenUser("th4", 200_000)).toBeUndefined();
      expect(await repo.tokenUser("th5", 200_000)).toBeDefined();
    });

    it("deletes a user with their sessions and tokens", async () => {
      const repo = (await fresh()).repository;
      await repo.insertUser(user("u1", "ann"));
      await repo.insertSession({ hash: "h1", userId: "u1", createdAt: 1000, expiresAt: 9000 });
      await repo.insertToken({ id: "t1", userId: "u1", name: "ci", hash: "th1", createdAt: 1000, lastUsedAt: null });
      expect(await repo.deleteUser("u1")).toBe(true);
      expect(await repo.deleteUser("u1")).toBe(false);
      expect(await repo.sessionUser("h1", 2000)).toBeUndefined();
      expect(await repo.tokenUser("th1", 2000)).toBeUndefined();
      expect(await repo.listTokens("u1")).toEqual([]);
      // The username is free again.
      await repo.insertUser(user("u9", "ann"));
      expect(await repo.sessionUser("h1", 2000)).toBeUndefined();
    });

    it("deletes a user all or nothing: when the user's row cannot be deleted, the sessions and tokens stay", async () => {
      const store = await fresh();
      const repo = store.repository;
      await repo.insertUser(user("u1", "ann"));
      await repo.insertSession({ hash: "h1", userId: "u1", createdAt: 1000, expiresAt: 9000 });
      await repo.insertToken({ id: "t1", userId: "u1", name: "ci", hash: "th1", createdAt: 1000, lastUsedAt: null });
      await store.failUserDeletes();
      await expect(repo.deleteUser("u1")).rejects.toThrow();
      expect((await repo.sessionUser("h1", 2000))?.id).toBe("u1");
      expect((await repo.tokenUser("th1", 2000))?.tokenId).toBe("t1");
    });
  });
}
