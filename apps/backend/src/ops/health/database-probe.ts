import type { SqlHandle } from "../../storage/sql-handle.ts";
import type { DatabaseProbe } from "./health-report.ts";

/**
 * `SELECT 1` on the server's own connection. SQLite: straight on the connection, not through the
 * gate: a read joins any open transaction harmlessly, and a probe must not wait behind a long one.
 */
export function databaseProbe(handle: SqlHandle): DatabaseProbe {
  switch (handle.engine) {
    case "sqlite":
      return {
        engine: "sqlite",
        ping: async () => {
          handle.db.query("SELECT 1").get();
        },
      };
    case "postgres":
      return {
        engine: "postgres",
        ping: async () => {
          await handle.sql`SELECT 1`;
        },
      };
  }
}
