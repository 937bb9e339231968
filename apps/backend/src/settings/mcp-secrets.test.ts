import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { dbBytes } from "../testing/leak-probes.ts";

const ARG_SECRET = "sk-arg-secret-4c9d1e/+x";
const URL_SECRET = "url-secret-8e2f7a/?&";
const CLEAR_TOKEN = "clear-token-value-7a1f";
const CLEAR_URL_KEY = "clear-url-key-9b2c";

const Status = z.looseObject({ state: z.string(), error: z.string().optional(), lastCrash: z.string().optional() });
const View = z.object({ mcpServers: z.record(z.string(), z.looseObject({})), status: z.record(z.string(), Status) });

let t: TestServer;
let editor: TestUser;
let seen: string;
beforeAll(async () => {
  t = await startTestServer();
  editor = await createTestUser(t, "ed", "editor");
  seen = join(tempDir("weft-mcp-args-"), "argv.txt");
});
afterAll(() => t.stop());

/** Every form a secret could leak in: as typed, URL-encoded. */
function leaks(text: string, secret: string): boolean {
  return text.includes(secret) || text.includes(encodeURIComponent(secret));
}

describe("MCP args and url marked secret with ${env:NAME}", () => {
  it("are given to the server resolved, stored encrypted, and never returned to an editor, not even in a failed server's error text", async () => {
    // A server that records its command line, echoes it to stderr and fails: its error text then holds the command line.
    const script = `printf '%s\\n' "$@" > '${seen}'; echo "started with: $*" >&2; exit 3`;
    const put = await t.call("PUT", "/api/settings/mcp", {
      mcpServers: {
        leaky: { command: "sh", args: ["-c", script, "sh", "--api-key=${env:API_KEY}", "--token", CLEAR_TOKEN], env: { API_KEY: ARG_SECRET } },
        remote: { url: "http://127.0.0.1:1/mcp?key=${env:URL_KEY}", env: { URL_KEY: URL_SECRET } },
        pasted: { url: `http://127.0.0.1:1/mcp?key=${CLEAR_URL_KEY}` },
      },
    });
    expect(put.status).toBe(200);
    // The server got the real value: the reference was resolved from the encrypted env.
    const argv = await waitFor(
      async () => {
        try {
          return readFileSync(seen, "utf8");
        } catch {
          return undefined;
        }
      },
      20_000,
      "the server to record its arguments",
    );
    expect(argv.split("\n")).toContain(`--api-key=${ARG_SECRET}`);
    const failed = await waitFor(
      async () => {
        const view = View.parse((await editor.call("GET", "/api/settings/mcp")).body);
        const texts = ["leaky", "remote", "pasted"].map((name) => `${view.status[name]?.error ?? ""}${view.status[name]?.lastCrash ?? ""}`);
        return texts[0].includes("started with") && texts[1] && texts[2] ? view : undefined;
      },
      20_000,
      "the servers to fail with their error texts",
    );
    const asEditor = JSON.stringify(failed);
    for (const secret of [ARG_SECRET, URL_SECRET, CLEAR_TOKEN, CLEAR_URL_KEY]) expect(leaks(asEditor, secret), secret).toBe(false);
    // What the editor does see: the servers, their references and that a key is there.
    expect(asEditor).toContain("--api-key=${env:API_KEY}");
    expect(failed.status.leaky.error).toContain("--token");
    // The owner sees the references and their own clear text, never the values behind references.
    const asOwner = JSON.stringify((await t.call("GET", "/api/settings/mcp")).body);
    for (const secret of [ARG_SECRET, URL_SECRET]) expect(leaks(asOwner, secret), secret).toBe(false);
    expect(asOwner).toContain("?key=${env:URL_KEY}");
    // At rest: encrypted.
    for (const secret of [ARG_SECRET, URL_SECRET]) expect(dbBytes(t.dataDir).includes(secret)).toBe(false);
  });

  it("refuses a reference to an env value the server does not have, saying which and how to fix it", async () => {
    const put = await t.call("PUT", "/api/settings/mcp", { mcpServers: { broken: { command: "sh", args: ["--key=${env:MISSING}"] } } });
    expect(put.status).toBe(400);
    expect(ErrorBodySchema.parse(put.body).error.message).toContain('add "MISSING"');
  });

  it("is refused to editors who try to change it", async () => {
    expect((await editor.call("PUT", "/api/settings/mcp", { mcpServers: {} })).status).toBe(403);
  });
});
