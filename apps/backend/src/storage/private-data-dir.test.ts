import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";

/** Issue 31 (low): weft.sqlite, -wal and -shm were 0644 in a 0755 folder, so other local users read runs and password hashes. */

const mode = (path: string) => statSync(path).mode & 0o7777;

/** Every entry of the data folder (and of audit/) with its mode, links left out. */
function modes(dataDir: string): Record<string, string> {
  const found: Record<string, string> = { ".": mode(dataDir).toString(8) };
  for (const folder of ["", "audit"]) {
    let names: string[];
    try {
      names = readdirSync(join(dataDir, folder));
    } catch {
      continue;
    }
    for (const name of names) {
      const entry = lstatSync(join(dataDir, folder, name));
      if (!entry.isSymbolicLink()) found[join(folder, name)] = (entry.mode & 0o7777).toString(8);
    }
  }
  return found;
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A server with its own access token and master key in the data folder (none from the environment). */
const start = (dataDir: string) => startTestServer({ dataDir, authToken: undefined, secret: undefined });

describe("the data folder is its user's alone", () => {
  it("a fresh one is made 0700, with every file in it 0600: the database, its -wal and -shm, the keys, the token, the lock", async () => {
    const dataDir = join(tempDir(), "data");
    server = await start(dataDir);
    const found = modes(dataDir);
    expect(Object.keys(found)).toEqual(expect.arrayContaining(["weft.sqlite", "weft.sqlite-wal", "weft.sqlite-shm", "access-token", "master.key", "weft.lock", "state"]));
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, name === "." || name === "state" ? "700" : "600"])));
  });

  it("an existing install with 0755 and 0644 modes is fixed at start; a link in it is not followed", async () => {
    const dataDir = join(tempDir(), "data");
    server = await start(dataDir);
    await server.stop();
    server = undefined;
    // As an install made before this change left it.
    mkdirSync(join(dataDir, "audit"));
    writeFileSync(join(dataDir, "audit", "tools.jsonl"), "{}\n");
    const outside = join(tempDir(), "elsewhere.txt");
    writeFileSync(outside, "not Weft's\n");
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, "link"));
    for (const name of readdirSync(dataDir)) {
      if (name !== "link") chmodSync(join(dataDir, name), statSync(join(dataDir, name)).isDirectory() ? 0o755 : 0o644);
    }
    chmodSync(join(dataDir, "audit"), 0o755);
    chmodSync(join(dataDir, "audit", "tools.jsonl"), 0o644);
    chmodSync(dataDir, 0o755);
    expect(modes(dataDir)["weft.sqlite"]).toBe("644");

    server = await start(dataDir);
    const found = modes(dataDir);
    expect(Object.keys(found)).toEqual(expect.arrayContaining(["weft.sqlite", "weft.sqlite-wal", "weft.sqlite-shm", "access-token", "master.key", "state", "audit", "audit/tools.jsonl"]));
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, [".", "state", "audit"].includes(name) ? "700" : "600"])));
    expect(mode(outside)).toBe(0o644);
  });
});
