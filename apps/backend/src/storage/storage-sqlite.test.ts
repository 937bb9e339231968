import { afterAll } from "vitest";
import { openSqliteStorage } from "../testing/storage.ts";
import { storageContract } from "../testing/storage-contract/index.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach(removeDir));

storageContract({
  engine: "sqlite",
  async freshDatabase() {
    const dir = tempDir("weft-storage-contract-");
    dirs.push(dir);
    return { open: async (redactor) => openSqliteStorage(dir, redactor) };
  },
});
