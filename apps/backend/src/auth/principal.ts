/**
 * Who a request acts for. Today every principal is the install's owner (the access token and the
 * sessions it opens); user accounts add more kinds and roles without changing the callers.
 */
export interface Principal {
  kind: "access-token" | "session";
  /** Stable id of the user; "owner" for the install's token. */
  userId: string;
  role: "owner";
}

const principals = new WeakMap<Request, Principal>();

export function setPrincipal(request: Request, principal: Principal): void {
  principals.set(request, principal);
}

/** The principal the trust boundary found for this request; undefined only on the public routes. */
export function principalOf(request: Request): Principal | undefined {
  return principals.get(request);
}
