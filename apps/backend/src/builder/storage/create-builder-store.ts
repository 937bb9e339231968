import type { Storage } from "../../storage/storage.ts";
import type { BuilderStore, Transact } from "./builder-store.ts";
import { PostgresBuilderStore } from "./postgres-builder-store.ts";
import { SqliteBuilderStore } from "./sqlite-builder-store.ts";

/** The Builder's store on the server storage's engine and connection: its writes join `Storage.transaction`. */
export function createBuilderStore(storage: Pick<Storage, "sql" | "redactor" | "transaction">): BuilderStore {
  const transact: Transact = (work) => storage.transaction(work);
  const handle = storage.sql;
  switch (handle.engine) {
    case "sqlite":
      return new SqliteBuilderStore(handle, storage.redactor, transact);
    case "postgres":
      return new PostgresBuilderStore(handle, storage.redactor, transact);
    default: {
      const never: never = handle;
      return never;
    }
  }
}
