import type { Logger, SecretRedactor } from "@weft/types";
import { createAccounts } from "../accounts/index.ts";
import type { SqlHandle, Transact } from "../storage/sql-handle.ts";
import { loadAccessToken } from "./access-token.ts";
import { authApi } from "./auth-api.ts";
import { SitePolicy } from "./site-policy.ts";
import { TrustBoundary } from "./trust-boundary.ts";
import { WsAccess, type WsRateLimits } from "./ws-access.ts";

/** The server options the trust boundary is built from (`ServerOptions`' fields of the same names). */
export interface AuthOptions {
  dataDir: string;
  authToken?: string;
  hostname?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  wsRateLimits?: WsRateLimits;
}

/**
 * Who may call, in an API process: the access token (redacted from now on), the accounts, the trust boundary every
 * request passes, the `/ws` sockets' access (checked again when a user's credentials change here), and the sign-in routes.
 */
export async function composeAuth(options: AuthOptions, deps: { storage: { sql: SqlHandle; transaction: Transact }; redactor: SecretRedactor; maxBodyBytes: number; log: Logger }) {
  const { storage, redactor, maxBodyBytes, log } = deps;
  const token = loadAccessToken(options.dataDir, options.authToken);
  redactor.set("access-token", "access token", [token.value]);
  const accounts = await createAccounts({ storage: { sql: storage.sql, transaction: storage.transaction, redactor }, maxBodyBytes, log: log.child("accounts") });
  const site = new SitePolicy({ boundHost: options.hostname ?? "127.0.0.1", allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });
  const boundary = new TrustBoundary(token, site, accounts.service);
  const wsAccess = new WsAccess((request) => boundary.principalFor(request), options.wsRateLimits);
  // A token revoked, a session ended, a role changed, a password reset, a user deleted: their open sockets are checked at once (and in the other API processes).
  accounts.service.onCredentialsChanged((userId) => wsAccess.recheckUser(userId));
  return { token, accounts, boundary, wsAccess, api: authApi(boundary, maxBodyBytes) };
}
