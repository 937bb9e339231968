import type { Storage } from "../storage/storage.ts";
import { PostgresSceneStateStore } from "./postgres-scene-state-store.ts";
import type { SceneStore } from "./scene-store.ts";
import { SqliteSceneStateStore } from "./sqlite-scene-state-store.ts";

/** The scene store on the storage's engine and connection. */
export function createSceneStore(storage: Pick<Storage, "sql" | "redactor" | "transaction">): SceneStore {
  const { sql } = storage;
  switch (sql.engine) {
    case "sqlite":
      return new SqliteSceneStateStore(storage);
    case "postgres":
      return new PostgresSceneStateStore(sql, storage);
    default: {
      const never: never = sql;
      return never;
    }
  }
}
