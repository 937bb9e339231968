import { createTestDatabase, startPostgres, type TestPostgres } from "../../testing/postgres-server.ts";

/** The database the queue tests' processes share, as the environment they are started with. */
export interface QueueTestDatabase {
  engine: "postgres" | "sqlite";
  /** WEFT_DATABASE_URL for PostgreSQL; nothing for SQLite (the processes share WEFT_DATA_DIR's file). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL, started for the test (the engine the queue mode is deployed with). WEFT_QUEUE_TEST_DB=sqlite
 * runs the same tests on one SQLite file shared by every process instead (one machine only).
 */
export async function queueTestDatabase(): Promise<QueueTestDatabase> {
  if (process.env.WEFT_QUEUE_TEST_DB === "sqlite") return { engine: "sqlite", env: {}, stop: async () => undefined };
  const cluster: TestPostgres = await startPostgres();
  const url = await createTestDatabase(cluster.url);
  return { engine: "postgres", env: { WEFT_DATABASE_URL: url }, stop: () => cluster.stop() };
}
