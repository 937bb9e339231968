import { ApiError } from "../api/errors.ts";
import type { AccessToken } from "./access-token.ts";
import { setPrincipal, type Principal } from "./principal.ts";
import { SESSION_COOKIE, SessionSigner, cookieValue, safeEqual, sessionCookie } from "./session-cookie.ts";
import type { SitePolicy } from "./site-policy.ts";

/** Sent with every answer: the editor is never framed, sniffed, or told where it was opened from. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Routes anyone who reaches the server may call: the health probe and the sign-in itself. */
function isPublicApi(method: string, path: string): boolean {
  return ((method === "GET" || method === "HEAD") && path === "/api/health") || (method === "POST" && path === "/api/auth/session");
}

/** The MCP endpoint: authenticated like the API, and the one place a `?token=` query is a credential. */
export const MCP_PATH = "/mcp";

/** The editor's files: public, they hold no data (a signed-out editor shows its sign-in form). */
function isEditorFile(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path !== "/ws" && path !== MCP_PATH && path !== "/api" && !path.startsWith("/api/");
}

export function isSecureRequest(request: Request, url: URL): boolean {
  return url.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

/**
 * Every request passes here before routing (the `/ws` upgrade too): Host, Origin, Content-Type,
 * then who is calling. A refusal is an ApiError with its HTTP status; a pass records the principal.
 */
export class TrustBoundary {
  readonly signer: SessionSigner;

  constructor(
    private readonly token: AccessToken,
    private readonly site: SitePolicy,
  ) {
    this.signer = new SessionSigner(token.value);
  }

  /** A Response to send instead of routing (a refusal, or the token-for-cookie trade), or undefined to go on. */
  check(request: Request): Response | undefined {
    const url = new URL(request.url);
    const host = request.headers.get("host");
    if (!this.site.hostAllowed(host)) {
      throw new ApiError("MISDIRECTED_HOST", `Weft does not answer to the host name ${JSON.stringify(host ?? "")}. To reach it by this name, add it to WEFT_ALLOWED_HOSTS.`, { host });
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !this.site.originAllowed(origin, host ?? "")) {
      throw new ApiError("FORBIDDEN_ORIGIN", `Requests from pages of ${JSON.stringify(origin)} are refused. To let that site use Weft's API, add it to WEFT_ALLOWED_ORIGINS.`, { origin });
    }
    if (!SAFE_METHODS.has(request.method) && !isJson(request.headers.get("content-type"))) {
      throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `${request.method} requests must be sent with Content-Type: application/json (an empty body is fine where none is needed).`, {
        contentType: request.headers.get("content-type"),
      });
    }
    const path = url.pathname;
    const principal = this.authenticate(request, url);
    if (principal) setPrincipal(request, principal);
    if (isEditorFile(request.method, path)) return this.tradeToken(request, url);
    if (principal || isPublicApi(request.method, path)) return undefined;
    throw new ApiError(
      "UNAUTHENTICATED",
      `Sign in first: open the editor link Weft printed when it started, or send "Authorization: Bearer <token>". The token is ${this.token.source === "env" ? "the value of WEFT_AUTH_TOKEN" : `in ${this.token.file}`}.`,
    );
  }

  tokenMatches(candidate: string): boolean {
    return safeEqual(candidate, this.token.value);
  }

  private authenticate(request: Request, url: URL): Principal | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer !== undefined) return this.tokenMatches(bearer) ? { kind: "access-token", userId: "owner", role: "owner" } : undefined;
    // Some MCP clients are configured with a URL alone and cannot add a header; nowhere else, so the token stays out of other links.
    const queried = url.pathname === MCP_PATH ? url.searchParams.get("token") : null;
    if (queried !== null) return this.tokenMatches(queried) ? { kind: "access-token", userId: "owner", role: "owner" } : undefined;
    const session = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
    return session !== undefined && this.signer.verify(session) ? { kind: "session", userId: "owner", role: "owner" } : undefined;
  }

  /**
   * `/?token=…` (the link printed at start): with the right token, a session cookie and a redirect to
   * the same page without the token, so it leaves the address bar and the history.
   */
  private tradeToken(request: Request, url: URL): Response | undefined {
    const given = url.searchParams.get("token");
    if (given === null || !this.tokenMatches(given)) return undefined;
    url.searchParams.delete("token");
    return new Response(null, {
      status: 303,
      headers: { location: url.pathname + url.search, "set-cookie": sessionCookie(this.signer.issue(), isSecureRequest(request, url)), "cache-control": "no-store", ...SECURITY_HEADERS },
    });
  }
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
