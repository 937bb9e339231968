import { Elysia } from "elysia";
import { z } from "zod";
import type { Principal } from "../accounts/principal.ts";
import { SignInRefusedError, normaliseUsername } from "../accounts/account-service.ts";
import { SignInThrottle } from "../accounts/sign-in-throttle.ts";
import { TokenViewSchema } from "../accounts/account-records.ts";
import { PasswordSchema } from "../accounts/users-api.ts";
import { SESSION_COOKIE, clearedSessionCookie, cookieValue, sessionCookie } from "../api/session-cookie.ts";
import { readBody } from "../api/body.ts";
import { ApiError, answer } from "../api/errors.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { principalOf } from "./principal.ts";
import { isSecureRequest, type TrustBoundary } from "./trust-boundary.ts";

/** Either the access token (the bootstrap owner's sign-in) or a user's username and password. */
const SignInSchema = z.union([z.object({ token: z.string().min(1).max(1024) }).strict(), z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(256) }).strict()]);
const PasswordChangeSchema = z.object({ currentPassword: z.string().min(1).max(256), newPassword: PasswordSchema }).strict();
const TokenCreateSchema = z.object({ name: z.string().trim().min(1).max(100) }).strict();

const PrincipalViewSchema = z.object({
  kind: z.enum(["access-token", "session", "personal-token"]),
  userId: z.string(),
  username: z.string(),
  name: z.string(),
  role: z.enum(["owner", "editor", "viewer"]),
});
const SessionAnswer = z.object({ principal: PrincipalViewSchema });
const TokensAnswer = z.object({ tokens: z.array(TokenViewSchema) });
const CreatedTokenAnswer = z.object({ token: TokenViewSchema, secret: z.string().describe("the token to send as Authorization: Bearer <secret>; shown this once") });

/** Present on every route but the public ones: the trust boundary refused the request otherwise. */
function signedIn(request: Request): Principal {
  const principal = principalOf(request);
  if (!principal) throw new ApiError("UNAUTHENTICATED", "Sign in first.");
  return principal;
}

/**
 * The editor's sign-in (username and password, or the access token) traded for an HttpOnly session
 * cookie, sign-out, the user's own password, and their personal API tokens.
 */
export function authApi(boundary: TrustBoundary, maxBodyBytes: number, throttle = new SignInThrottle()) {
  const accounts = boundary.accounts;
  const withCookie = async (request: Request, userId: string) => {
    const cookie = sessionCookie(await accounts.openSession(userId), isSecureRequest(request, new URL(request.url)));
    return answer(OkAnswer, { ok: true }, 200, { "set-cookie": cookie, "cache-control": "no-store" });
  };
  return new Elysia()
    .post("/api/auth/session", async ({ request }) => {
      const body = await readBody(request, SignInSchema, maxBodyBytes);
      if ("token" in body) {
        if (!boundary.accessTokenSignIn(request, body.token))
          throw new ApiError("UNAUTHENTICATED", "That is not this Weft's access token. Copy it again from the link Weft printed at start (the part after ?token=).");
        return withCookie(request, accounts.bootstrapPrincipal().userId);
      }
      const username = normaliseUsername(body.username);
      const wait = throttle.waitFor(username);
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60_000);
        throw new ApiError("TOO_MANY_REQUESTS", `Too many wrong passwords for "${username}"; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
          retryAfterMs: wait,
        });
      }
      // Counted as a failure before the (slow) check, so guesses sent at once cannot all pass the limit; a success clears it.
      throttle.failed(username);
      try {
        const user = await accounts.verifyPassword(username, body.password);
        throttle.succeeded(username);
        return await withCookie(request, user.id);
      } catch (error) {
        if (!(error instanceof SignInRefusedError)) throw error;
        throw new ApiError("UNAUTHENTICATED", error.message, { reason: "WRONG_CREDENTIALS" });
      }
    })
    .get("/api/auth/session", async ({ request }) => {
      const principal = signedIn(request);
      const user = await accounts.getUser(principal.userId);
      return answer(SessionAnswer, { principal: { ...principal, name: user.name } }, 200, { "cache-control": "no-store" });
    })
    .delete("/api/auth/session", async ({ request }) => {
      // Ends the session on the server too: a copied cookie opens nothing afterwards.
      const session = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
      if (session !== undefined) await accounts.endSession(session);
      return answer(OkAnswer, { ok: true }, 200, { "set-cookie": clearedSessionCookie() });
    })
    .put("/api/auth/password", async ({ request }) => {
      const principal = signedIn(request);
      const body = await readBody(request, PasswordChangeSchema, maxBodyBytes);
      await accounts.changeOwnPassword(principal.userId, body.currentPassword, body.newPassword);
      // Every session ended with the old password; this browser goes on in a new one.
      return principal.kind === "session" ? withCookie(request, principal.userId) : answer(OkAnswer, { ok: true });
    })
    .get("/api/auth/tokens", async ({ request }) => answer(TokensAnswer, { tokens: await accounts.listTokens(signedIn(request).userId) }, 200, { "cache-control": "no-store" }))
    .post("/api/auth/tokens", async ({ request }) => {
      const principal = signedIn(request);
      const { name } = await readBody(request, TokenCreateSchema, maxBodyBytes);
      const created = await accounts.createToken(principal.userId, name);
      return answer(CreatedTokenAnswer, { token: created.token, secret: created.secret }, 201, { "cache-control": "no-store" });
    })
    .delete("/api/auth/tokens/:id", async ({ request, params }) => {
      await accounts.revokeToken(signedIn(request).userId, params.id);
      return answer(OkAnswer, { ok: true });
    });
}

/** The signed-in user's own routes, as the OpenAPI document describes them. */
export const AUTH_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/auth/session", "auth", "Who is signed in, with their role", { response: SessionAnswer }),
  route("POST", "/api/auth/session", "auth", "Sign in with username and password, or the access token, for a session cookie (public)", { body: SignInSchema, response: OkAnswer }),
  route("DELETE", "/api/auth/session", "auth", "Sign out (ends the session on the server)", { response: OkAnswer }),
  route("PUT", "/api/auth/password", "auth", "Change your own password (ends your other sessions)", { body: PasswordChangeSchema, response: OkAnswer }),
  route("GET", "/api/auth/tokens", "auth", "Your personal API tokens (never their secrets)", { response: TokensAnswer }),
  route("POST", "/api/auth/tokens", "auth", "Create a personal API token: the secret is in this answer only", {
    body: TokenCreateSchema,
    status: 201,
    response: CreatedTokenAnswer,
  }),
  route("DELETE", "/api/auth/tokens/:id", "auth", "Revoke one of your personal API tokens", { response: OkAnswer }),
];
