import { timingSafeEqual } from "node:crypto";

/**
 * The editor's cookie names a user session (accounts/account-service.ts): a random secret stored as its
 * hash, so signing out, a new password or a deleted user ends it on the server.
 */
export const SESSION_COOKIE = "weft_session";
export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/** Constant-time comparison of two texts (lengths may differ: that alone is not secret). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The value of one cookie in a `Cookie` header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_AGE_S}${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
