import type { Role } from "./roles.ts";

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
