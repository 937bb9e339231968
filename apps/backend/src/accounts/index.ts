import type { Logger } from "@weft/types";
import type { TableEngine } from "../storage/table.ts";
import { AccountService } from "./account-service.ts";
import { AccountTable } from "./account-repository.ts";
import { usersApi } from "./users-api.ts";
import type { AccountRepository } from "./account-records.ts";
import { roleAtLeast } from "./roles.ts";

export { AccountTable };

/**
 * Whether a user may start runs now (an editor or an owner, by their role as stored now; a deleted user may not): asked
 * before a run starts on someone's behalf without a request of theirs (a failed run's error workflow).
 */
export function runStarterCheck(repository: AccountRepository): (userId: string) => Promise<boolean> {
  return async (userId) => {
    const user = await repository.getUser(userId);
    return user !== undefined && roleAtLeast(user.role, "editor");
  };
}

/** Users, sessions and personal tokens: the service (for the trust boundary) and the owners' /api/users routes. */
export async function createAccounts(options: { storage: TableEngine; maxBodyBytes: number; log: Logger }) {
  const repository = new AccountTable(options.storage);
  const service = new AccountService(repository, options.log);
  await service.ensureBootstrapOwner();
  return { service, api: usersApi(service, options.maxBodyBytes), mayRun: runStarterCheck(repository) };
}
