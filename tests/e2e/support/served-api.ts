import { silentLogger } from "../../../packages/types/src/index.ts";
import { createServer, type WeftServer } from "../../../apps/backend/src/server.ts";
import { removeDir, tempDir } from "../../../apps/backend/src/testing/temp-dirs.ts";
import { ApiClient } from "../../../apps/frontend/src/shared/api/client.ts";
import { ownerFetch } from "./as-owner.ts";
import { useStarted } from "./lifecycle.ts";

/** The real backend without a browser (temp data and examples folders, free port) and the editor's API client on it, as the owner. */
export interface ServedApi {
  server: WeftServer;
  client: ApiClient;
}

/**
 * The backend and its client for the tests of a file: started before them (then `setup`, in the same hook) and
 * stopped after them, its folders removed. The handle reads the started server, so use it in tests and hooks.
 */
export function useServedApi(setup?: (served: ServedApi) => Promise<void>): ServedApi {
  const dirs: string[] = [];
  const start = async (): Promise<ServedApi> => {
    // tempDir: a start that fails half-way still has its folders removed after the file.
    for (let i = 0; i < 2; i++) dirs.push(tempDir("weft-e2e-api-"));
    const server = await createServer({ dataDir: dirs[0], examplesDir: dirs[1], port: 0, logger: silentLogger, shutdownGraceMs: 200 });
    return { server, client: new ApiClient(server.url, ownerFetch(server.accessToken)) };
  };
  const stop = async ({ server }: ServedApi) => {
    await server.stop();
    // The server's @project/ folder (<data>-project) too.
    for (const dir of [...dirs, server.projectDir]) removeDir(dir);
  };
  return useStarted("the server", start, stop, setup, 60_000).handle;
}
