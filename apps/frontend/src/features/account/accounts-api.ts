import { z } from "zod";
import { ApiClient } from "../../shared/api/client.ts";

export const ROLES = ["viewer", "editor", "owner"] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

export const PrincipalSchema = z.object({
  kind: z.enum(["access-token", "session", "personal-token"]),
  userId: z.string(),
  username: z.string(),
  name: z.string(),
  role: RoleSchema,
});
export type Principal = z.infer<typeof PrincipalSchema>;

export const UserSchema = z.object({ id: z.string(), username: z.string(), name: z.string(), role: RoleSchema, hasPassword: z.boolean(), createdAt: z.number(), updatedAt: z.number() });
export type User = z.infer<typeof UserSchema>;

export const TokenSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.number(), lastUsedAt: z.number().nullable() });
export type PersonalToken = z.infer<typeof TokenSchema>;

const OkSchema = z.object({ ok: z.literal(true) });

export interface NewUser {
  username: string;
  name?: string;
  role: Role;
  password: string;
}

/** Who is signed in, their personal API tokens, and (owners) the users: docs/api.md "Accounts and roles". */
export class AccountsApi extends ApiClient {
  me() {
    return this.request("GET", "/api/auth/session", z.object({ principal: PrincipalSchema }));
  }

  signOut() {
    return this.request("DELETE", "/api/auth/session", OkSchema);
  }

  changePassword(currentPassword: string, newPassword: string) {
    return this.request("PUT", "/api/auth/password", OkSchema, { currentPassword, newPassword });
  }

  tokens() {
    return this.request("GET", "/api/auth/tokens", z.object({ tokens: z.array(TokenSchema) }));
  }

  /** The answer's `secret` is shown once: the server keeps only its hash. */
  createToken(name: string) {
    return this.request("POST", "/api/auth/tokens", z.object({ token: TokenSchema, secret: z.string() }), { name });
  }

  revokeToken(id: string) {
    return this.request("DELETE", `/api/auth/tokens/${encodeURIComponent(id)}`, OkSchema);
  }

  users() {
    return this.request("GET", "/api/users", z.object({ users: z.array(UserSchema) }));
  }

  createUser(user: NewUser) {
    return this.request("POST", "/api/users", z.object({ user: UserSchema }), user);
  }

  updateUser(id: string, change: { name?: string; role?: Role; password?: string }) {
    return this.request("PUT", `/api/users/${encodeURIComponent(id)}`, z.object({ user: UserSchema }), change);
  }

  userTokens(userId: string) {
    return this.request("GET", `/api/users/${encodeURIComponent(userId)}/tokens`, z.object({ tokens: z.array(TokenSchema) }));
  }

  revokeUserToken(userId: string, tokenId: string) {
    return this.request("DELETE", `/api/users/${encodeURIComponent(userId)}/tokens/${encodeURIComponent(tokenId)}`, OkSchema);
  }

  removeUser(id: string) {
    return this.request("DELETE", `/api/users/${encodeURIComponent(id)}`, OkSchema);
  }
}
