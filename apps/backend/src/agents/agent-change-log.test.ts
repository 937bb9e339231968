import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentChange } from "@weft/types";
import { MIGRATIONS } from "../schema.ts";
import { openSqliteStorage, openStorage, type Storage } from "../testing/storage.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { tempDir } from "../testing/test-server.ts";
import { AgentChangeLog } from "./agent-change-log.ts";

const change = (agentId: string, kind: AgentChange["kind"], at: number): AgentChange => ({
  agentId,
  kind,
  revision: kind === "deleted" ? null : 1,
  at,
  by: "u1",
  byName: "ed",
  role: "editor",
  fields: kind === "created" ? ["name", "tools"] : [],
  tools: ["fs:read"],
  skills: [],
  permissions: [{ action: "deny", tool: "shell.exec" }],
});

/** The change log on both engines: kept per agent, newest first, across a reopen, an id deleted and created again keeping its history. */
describe.each(["sqlite", "postgres"] as const)("the agent change log on %s", (engine) => {
  let pg: TestPostgres | undefined;
  let url = "";
  const dataDir = tempDir();
  const open = async (): Promise<Storage> => (engine === "sqlite" ? openSqliteStorage(dataDir, undefined, MIGRATIONS) : openStorage({ dataDir, databaseUrl: url, migrations: MIGRATIONS }));

  beforeAll(async () => {
    if (engine === "postgres") {
      pg = await startPostgres();
      url = await createTestDatabase(pg.url);
    }
  });
  afterAll(async () => {
    await pg?.stop();
  });

  it("keeps every change, newest first, per agent", async () => {
    let storage = await open();
    const log = new AgentChangeLog(storage);
    await log.record(change("ops", "created", 1));
    await log.record(change("other", "created", 2));
    await log.record(change("ops", "deleted", 3));
    await log.record(change("ops", "created", 4));
    await storage.close();
    storage = await open();
    try {
      const again = new AgentChangeLog(storage);
      expect((await again.list("ops", 50)).map((c) => [c.kind, c.at])).toEqual([
        ["created", 4],
        ["deleted", 3],
        ["created", 1],
      ]);
      expect(await again.list("ops", 1)).toEqual([change("ops", "created", 4)]);
      expect(await again.list("nobody", 50)).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
