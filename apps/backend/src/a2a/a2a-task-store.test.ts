import { afterAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { TaskState, type Task } from "@a2a-js/sdk";
import { sdkClient, textOf, userMessage } from "./testing/sdk-client.ts";
import type { ServerOptions } from "../server.ts";
import { startTestServer, tempDir } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

/** A task is stored: after the server that ran it stops, the next one answers `tasks/get` — for its agent and user only. */
function taskPersistence(engine: string, options: () => Promise<Partial<ServerOptions>>) {
  describe(`A2A tasks on ${engine}`, () => {
    it("a completed task is read back after a restart; another agent or another user does not find it", async () => {
      const shared = { ...(await options()), dataDir: tempDir(), examplesDir: EXAMPLES };
      const first = await startTestServer(shared);
      const editor = await createTestUser(first, "eddie", "editor");
      const other = await createTestUser(first, "otto", "editor");
      const task = (await (
        await sdkClient(first.url, "text-helper", editor.bearer)
      ).sendMessage({
        message: userMessage("Please uppercase this text: kept across restarts"),
        configuration: undefined,
        metadata: undefined,
        tenant: "",
      })) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      await first.stop();

      const second = await startTestServer(shared);
      try {
        const got = await (await sdkClient(second.url, "text-helper", editor.bearer)).getTask({ id: task.id, historyLength: undefined, tenant: "" });
        expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOf(got.status?.message)).toContain("KEPT ACROSS RESTARTS");
        expect(got.contextId).toBe(task.contextId);
        await expect((await sdkClient(second.url, "scribe", editor.bearer)).getTask({ id: task.id, historyLength: undefined, tenant: "" })).rejects.toThrow();
        await expect((await sdkClient(second.url, "text-helper", other.bearer)).getTask({ id: task.id, historyLength: undefined, tenant: "" })).rejects.toThrow();
      } finally {
        await second.stop();
      }
    });
  });
}

taskPersistence("SQLite", async () => ({}));

let cluster: TestPostgres | undefined;
afterAll(async () => cluster?.stop());
taskPersistence("PostgreSQL", async () => {
  cluster = await startPostgres();
  return { databaseUrl: await createTestDatabase(cluster.url) };
});
