import { Elysia } from "elysia";
import { z } from "zod";
import { readBody } from "../api/body.ts";
import { answer } from "../api/errors.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { MIN_PASSWORD_LENGTH, type AccountService } from "./account-service.ts";
import { TokenViewSchema, UserViewSchema } from "./account-records.ts";
import { RoleSchema } from "./roles.ts";

export const PasswordSchema = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(256);

const UserCreateSchema = z
  .object({
    username: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"),
    name: z.string().trim().max(100).optional(),
    role: RoleSchema,
    password: PasswordSchema,
  })
  .strict();
const UserUpdateSchema = z.object({ name: z.string().trim().min(1).max(100).optional(), role: RoleSchema.optional(), password: PasswordSchema.optional() }).strict();

const UsersAnswer = z.object({ users: z.array(UserViewSchema) });
const UserAnswer = z.object({ user: UserViewSchema });
const TokensAnswer = z.object({ tokens: z.array(TokenViewSchema) });

/** The owners' user management (route-rules.ts lets only owners through). */
export function usersApi(accounts: AccountService, maxBodyBytes: number) {
  return (
    new Elysia()
      .get("/api/users", async () => answer(UsersAnswer, { users: await accounts.listUsers() }, 200, { "cache-control": "no-store" }))
      .post("/api/users", async ({ request }) => answer(UserAnswer, { user: await accounts.createUser(await readBody(request, UserCreateSchema, maxBodyBytes)) }, 201))
      .put("/api/users/:id", async ({ request, params }) => answer(UserAnswer, { user: await accounts.updateUser(params.id, await readBody(request, UserUpdateSchema, maxBodyBytes)) }))
      .delete("/api/users/:id", async ({ params }) => {
        await accounts.deleteUser(params.id);
        return answer(OkAnswer, { ok: true });
      })
      // An owner who suspects a user's script or laptop sees and ends that user's tokens without deleting the user.
      .get("/api/users/:id/tokens", async ({ params }) => answer(TokensAnswer, { tokens: await accounts.listUserTokens(params.id) }, 200, { "cache-control": "no-store" }))
      .delete("/api/users/:id/tokens/:tokenId", async ({ params }) => {
        await accounts.revokeUserToken(params.id, params.tokenId);
        return answer(OkAnswer, { ok: true });
      })
  );
}

/** The owners' user routes, as the OpenAPI document describes them. */
export const USERS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/users", "users", "List users (owners)", { response: UsersAnswer }),
  route("POST", "/api/users", "users", "Create a user with a role and password (owners)", { body: UserCreateSchema, status: 201, response: UserAnswer }),
  route("PUT", "/api/users/:id", "users", "Change a user's name, role or password (owners; a new password ends their sessions)", {
    body: UserUpdateSchema,
    response: UserAnswer,
  }),
  route("DELETE", "/api/users/:id", "users", "Delete a user with their sessions and tokens (owners)", { response: OkAnswer }),
  route("GET", "/api/users/:id/tokens", "users", "A user's personal API tokens, never their secrets (owners)", { response: TokensAnswer }),
  route("DELETE", "/api/users/:id/tokens/:tokenId", "users", "Revoke one of a user's personal API tokens (owners)", { response: OkAnswer }),
];
