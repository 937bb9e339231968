import { Elysia } from "elysia";
import { z } from "zod";
import { principalOf } from "../auth/principal.ts";
import { clearedSessionCookie, sessionCookie } from "../auth/session-cookie.ts";
import { isSecureRequest, type TrustBoundary } from "../auth/trust-boundary.ts";
import { readBody } from "./body.ts";
import { ApiError, jsonResponse } from "./errors.ts";

export const SignInSchema = z.object({ token: z.string().min(1).max(1024) }).strict();

/** The editor's sign-in: the access token traded for an HttpOnly session cookie, and sign-out. */
export function authApi(boundary: TrustBoundary, maxBodyBytes: number) {
  return new Elysia()
    .post("/api/auth/session", async ({ request }) => {
      const { token } = await readBody(request, SignInSchema, maxBodyBytes);
      if (!boundary.tokenMatches(token)) throw new ApiError("UNAUTHENTICATED", "That is not this Weft's access token. Copy it again from the link Weft printed at start (the part after ?token=).");
      const cookie = sessionCookie(boundary.signer.issue(), isSecureRequest(request, new URL(request.url)));
      return jsonResponse({ ok: true }, 200, { "set-cookie": cookie, "cache-control": "no-store" });
    })
    .get("/api/auth/session", ({ request }) => jsonResponse({ principal: principalOf(request) }, 200, { "cache-control": "no-store" }))
    .delete("/api/auth/session", () => jsonResponse({ ok: true }, 200, { "set-cookie": clearedSessionCookie() }));
}
