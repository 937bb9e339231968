import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { openPostgresStorage, openSqliteStorage, type Storage } from "../testing/storage.ts";
import { removeDir, tempDir } from "../testing/temp-dirs.ts";
import type { StoredEvent } from "./event-repository.ts";

const event = (seq: number): StoredEvent => ({ streamId: "s", seq, type: "node.chunk", json: `{"seq":${seq}}` });

let cluster: TestPostgres | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs) removeDir(dir);
});

const open: Record<"sqlite" | "postgres", () => Promise<Storage>> = {
  sqlite: () => openSqliteStorage(dirs[dirs.push(tempDir("weft-events-")) - 1]),
  postgres: async () => openPostgresStorage(await createTestDatabase(cluster!.url)),
};

describe.each(["sqlite", "postgres"] as const)("events.append in several statements (%s)", (engine) => {
  // 1,501 events are 8 statements (1,024 rows at most each, in power-of-two chunks: 1024 + 256 + … + 4 + 1); seq 1500 is the last.
  it("stores all or none: a seq already stored in the last statement leaves none of the earlier statements' rows", async () => {
    const storage = await open[engine]();
    try {
      await storage.events.append([event(1500)]);
      await expect(storage.events.append(Array.from({ length: 1501 }, (_, seq) => event(seq)))).rejects.toThrow();
      expect(await storage.events.listAfter("s", -1, 5000)).toEqual([event(1500)]);
    } finally {
      await storage.close();
    }
  });
});
