import type { Logger } from "@weft/types";
import type { SqlHandle, Transact } from "../storage/sql-handle.ts";
import { AccountService } from "./account-service.ts";
import { openAccountRepository } from "./account-repository.ts";
import { usersApi } from "./users-api.ts";

export { openAccountRepository };

/** Users, sessions and personal tokens: the service (for the trust boundary) and the owners' /api/users routes. */
export async function createAccounts(options: { sql: SqlHandle; transaction: Transact; maxBodyBytes: number; log: Logger }) {
  const service = new AccountService(await openAccountRepository(options.sql, options.transaction), options.log);
  await service.ensureBootstrapOwner();
  return { service, api: usersApi(service, options.maxBodyBytes) };
}
