import { expect } from "vitest";
import { spawnServer, type ChildServer } from "../../../apps/backend/src/testing/child-server.ts";
import { TEST_TOKEN } from "../../../apps/backend/src/testing/http-call.ts";
import { removeDir, tempDir } from "../../../apps/backend/src/testing/temp-dirs.ts";

export interface PageServer {
  server: ChildServer;
  stop(): Promise<void>;
}

/**
 * A real Weft server (a child process: under happy-dom the server's own modules cannot load) whose
 * page this test environment becomes, signed in as the editor is: the stores' relative requests
 * go to it with the session cookie.
 */
export async function startPageServer(): Promise<PageServer> {
  // tempDir: removed after the file even when the server fails to come up or stop() is never reached.
  const dataDir = tempDir("weft-store-");
  const server = await spawnServer(dataDir, { WEFT_DEMO_LLM: "off" });
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${server.url}/`);
  const res = await fetch("/api/auth/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: TEST_TOKEN }) });
  expect(res.status).toBe(200);
  return {
    server,
    async stop() {
      server.proc.kill();
      await server.proc.exited;
      // The server's @project/ folder is <data>-project, beside it.
      for (const dir of [dataDir, `${dataDir}-project`]) removeDir(dir);
    },
  };
}
