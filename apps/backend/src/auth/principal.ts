import type { VersionAuthor } from "@weft/types";
import type { Principal } from "../accounts/principal.ts";

const principals = new WeakMap<Request, Principal>();

/** Recorded by the trust boundary once it has found who a request acts for (`Principal`, ../accounts/principal.ts). */
export function setPrincipal(request: Request, principal: Principal): void {
  principals.set(request, principal);
}

/** The principal the trust boundary found for this request; undefined only on the public routes. */
export function principalOf(request: Request): Principal | undefined {
  return principals.get(request);
}

/** The user a request acts for, for records that name who did something (runs, the tool audit log). */
export function actorOf(request: Request): string | undefined {
  return principals.get(request)?.userId;
}

/** The user a request acts for as a saved version names them (id and login name). */
export function authorOf(request: Request): VersionAuthor | undefined {
  const principal = principals.get(request);
  return principal ? { id: principal.userId, name: principal.username } : undefined;
}
