import type { Logger } from "@weft/types";
import type { SqlHandle } from "../storage/sql-handle.ts";
import type { AccountRepository } from "./account-records.ts";
import { AccountService } from "./account-service.ts";
import { PostgresAccountRepository } from "./postgres-account-repository.ts";
import { SqliteAccountRepository } from "./sqlite-account-repository.ts";
import { usersApi } from "./users-api.ts";

/** The accounts' repository on the storage's engine (on PostgreSQL its tables come with the storage's migrations). */
export async function openAccountRepository(handle: SqlHandle): Promise<AccountRepository> {
  switch (handle.engine) {
    case "sqlite":
      return new SqliteAccountRepository(handle);
    case "postgres":
      return new PostgresAccountRepository(handle);
    default: {
      const unknown: never = handle;
      throw new Error(`unknown storage engine ${JSON.stringify(unknown)}`);
    }
  }
}

/** Users, sessions and personal tokens: the service (for the trust boundary) and the owners' /api/users routes. */
export async function createAccounts(options: { sql: SqlHandle; maxBodyBytes: number; log: Logger }) {
  const service = new AccountService(await openAccountRepository(options.sql), options.log);
  await service.ensureBootstrapOwner();
  return { service, api: usersApi(service, options.maxBodyBytes) };
}
