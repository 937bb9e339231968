import type { Role } from "../accounts/roles.ts";

/**
 * Who a request acts for: the install's access token (the bootstrap owner), a user's session cookie,
 * or a user's personal API token. The role is read from the user at each request, so a change applies at once.
 */
export interface Principal {
  kind: "access-token" | "session" | "personal-token";
  /** Stable id of the user; "owner" for the install's token. */
  userId: string;
  /** The user's login name ("owner" for the bootstrap owner). */
  username: string;
  role: Role;
}

const principals = new WeakMap<Request, Principal>();

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
