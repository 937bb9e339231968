import { Elysia } from "elysia";
import { z } from "zod";
import { readBody } from "../api/body.ts";
import { jsonResponse } from "../api/errors.ts";
import { PasswordSchema } from "../api/auth.ts";
import type { AccountService } from "./account-service.ts";
import { RoleSchema } from "./roles.ts";

export const UserCreateSchema = z
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
export const UserUpdateSchema = z.object({ name: z.string().trim().min(1).max(100).optional(), role: RoleSchema.optional(), password: PasswordSchema.optional() }).strict();

/** The owners' user management (route-rules.ts lets only owners through). */
export function usersApi(accounts: AccountService, maxBodyBytes: number) {
  return (
    new Elysia()
      .get("/api/users", async () => jsonResponse({ users: await accounts.listUsers() }, 200, { "cache-control": "no-store" }))
      .post("/api/users", async ({ request }) => jsonResponse({ user: await accounts.createUser(await readBody(request, UserCreateSchema, maxBodyBytes)) }, 201))
      .put("/api/users/:id", async ({ request, params }) => jsonResponse({ user: await accounts.updateUser(params.id, await readBody(request, UserUpdateSchema, maxBodyBytes)) }))
      .delete("/api/users/:id", async ({ params }) => {
        await accounts.deleteUser(params.id);
        return jsonResponse({ ok: true });
      })
      // An owner who suspects a user's script or laptop sees and ends that user's tokens without deleting the user.
      .get("/api/users/:id/tokens", async ({ params }) => jsonResponse({ tokens: await accounts.listUserTokens(params.id) }, 200, { "cache-control": "no-store" }))
      .delete("/api/users/:id/tokens/:tokenId", async ({ params }) => {
        await accounts.revokeUserToken(params.id, params.tokenId);
        return jsonResponse({ ok: true });
      })
  );
}
