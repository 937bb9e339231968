import { z } from "zod";
import type { Role } from "../accounts/roles.ts";
import { call } from "./http-call.ts";
import type { TestServer } from "./test-server.ts";

/** A user a test created through the API, signed in: headers that act as them by cookie or by personal token. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
  role: Role;
  /** `cookie: weft_session=…` from the login page's request. */
  session: Record<string, string>;
  /** `authorization: Bearer weft_pat_…`. */
  bearer: Record<string, string>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }>;
}

/** `GET /api/users`, for tests that read who exists. */
export const UserListAnswerSchema = z.object({ users: z.array(z.object({ id: z.string(), username: z.string(), role: z.string() })) });

const CreatedUser = z.object({ user: z.object({ id: z.string() }) });
/** `POST /api/auth/tokens`: the new token's secret (shown once). */
export const CreatedTokenSchema = z.object({ secret: z.string() });

/** Creates a user as the owner, signs them in with their password and gives them a personal API token. */
export async function createTestUser(t: TestServer, username: string, role: Role, password = `pw-${username}-long-enough`): Promise<TestUser> {
  const created = await t.call("POST", "/api/users", { username, role, password });
  if (created.status !== 201) throw new Error(`creating ${username} answered ${created.status}: ${JSON.stringify(created.body)}`);
  const { id } = CreatedUser.parse(created.body).user;
  const session = await signInWithPassword(t.url, username, password);
  if (!session) throw new Error(`${username} could not sign in`);
  const token = await call(t.url, "POST", "/api/auth/tokens", { name: "test" }, session);
  const bearer = { authorization: `Bearer ${CreatedTokenSchema.parse(token.body).secret}` };
  return { id, username, password, role, session, bearer, call: (method, path, body) => call(t.url, method, path, body, session) };
}

/** The login page's request: the session cookie header, or undefined when refused. */
export async function signInWithPassword(url: string, username: string, password: string): Promise<Record<string, string> | undefined> {
  const res = await fetch(`${url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
  if (res.status !== 200) return undefined;
  return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] };
}
