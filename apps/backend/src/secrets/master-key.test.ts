import { describe, expect, it } from "vitest";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SecretRedactor } from "@weft/types";
import { tempDir } from "../testing/test-server.ts";
import { loadMasterKey, MASTER_KEY_FILE } from "./master-key.ts";

describe("the master key file", () => {
  it("is made once with mode 0600, no draft left beside it, and read back the same", () => {
    const dir = tempDir();
    const first = loadMasterKey(dir, undefined, new SecretRedactor());
    expect(first).toHaveLength(32);
    expect(statSync(join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([MASTER_KEY_FILE]);
    expect(loadMasterKey(dir, undefined, new SecretRedactor()).equals(first)).toBe(true);
  });
});
