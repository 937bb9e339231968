import { createHmac, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "weft_session";
export const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/**
 * Editor sessions as signed cookies: `v1.<issued>.<mac>`, the MAC keyed by the access token. No
 * session table: a restart keeps sessions, and a new token ends every one of them.
 */
export class SessionSigner {
  private readonly key: Buffer;

  constructor(token: string) {
    this.key = createHmac("sha256", token).update("weft/session/v1").digest();
  }

  issue(now = Date.now()): string {
    const issued = Math.floor(now / 1000).toString(36);
    return `v1.${issued}.${this.mac(issued)}`;
  }

  verify(value: string, now = Date.now()): boolean {
    const [version, issued, mac] = value.split(".");
    if (version !== "v1" || !issued || !mac || !/^[0-9a-z]{1,12}$/.test(issued)) return false;
    const age = now / 1000 - parseInt(issued, 36);
    if (age < -60 || age > SESSION_MAX_AGE_S) return false;
    return safeEqual(mac, this.mac(issued));
  }

  private mac(issued: string): string {
    return createHmac("sha256", this.key).update(issued).digest("base64url");
  }
}

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
