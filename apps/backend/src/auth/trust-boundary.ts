import { ApiError } from "../api/errors.ts";
import { SECURITY_HEADERS } from "../api/security-headers.ts";
import { PERSONAL_TOKEN_PREFIX, type AccountService } from "../accounts/account-service.ts";
import { ROLE_DUTIES, roleAtLeast } from "../accounts/roles.ts";
import type { AccessToken } from "./access-token.ts";
import type { Principal } from "../accounts/principal.ts";
import { setPrincipal } from "./principal.ts";
import { RouteRules } from "./route-rules.ts";
import { actionWords, whoMay } from "./refusal-words.ts";
import { SignInThrottle } from "../accounts/sign-in-throttle.ts";
import { SESSION_COOKIE, cookieValue, safeEqual, sessionCookie } from "../api/session-cookie.ts";
import type { SitePolicy } from "./site-policy.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The MCP endpoint: authenticated like the API, and the one place a `?token=` query is a credential. */
export const MCP_PATH = "/mcp";

/** Where `/?token=…` may be traded for a session: the editor's pages, not the API. */
function isEditorPage(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path !== "/ws" && path !== MCP_PATH && path !== "/api" && !path.startsWith("/api/");
}

/** Webhooks (`/hooks/<workflowId>/<path>`, ../triggers/hooks-api.ts): public, each hook proving its caller itself. */
export function isHookPath(path: string): boolean {
  return path.startsWith("/hooks/");
}

/**
 * The path of a request's URL (`http://host/path?query`) where URL parsing would give the same (no dot segment,
 * escape or backslash to normalise, a plain authority), else undefined: a webhook, the most frequent request, then
 * skips building a URL (~3% of a hook request's CPU in bench:webhook).
 */
export function plainPath(url: string): string | undefined {
  const authority = url.indexOf("//") + 2;
  const start = url.indexOf("/", authority);
  if (authority < 2 || start < 0 || /[?#\\@%]/.test(url.slice(authority, start))) return undefined;
  let end = url.indexOf("?", start);
  if (end < 0) end = url.length;
  const fragment = url.indexOf("#", start);
  if (fragment >= 0 && fragment < end) end = fragment;
  const path = url.slice(start, end);
  return /\/\.|%|\\/.test(path) ? undefined : path;
}

export function isSecureRequest(request: Request, url: URL): boolean {
  return url.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

/**
 * Every request passes here before routing (the `/ws` upgrade too): Host, Origin, Content-Type,
 * then who is calling, then whether their role may call this route (route-rules.ts). A refusal is an
 * ApiError with its HTTP status; a pass records the principal.
 */
export class TrustBoundary {
  /** Where each request came from (the socket's peer address), for the token throttle. */
  private readonly addresses = new WeakMap<Request, string>();

  constructor(
    private readonly token: AccessToken,
    private readonly site: SitePolicy,
    readonly accounts: AccountService,
    private readonly rules = new RouteRules(),
    /** Wrong tokens per client address (any route's Bearer, `/mcp?token=`, the link, the sign-in form), like wrong passwords per username. */
    private readonly tokenGuesses = new SignInThrottle(20, 15 * 60_000),
  ) {}

  /**
   * A Response to send instead of routing (a refusal, or the token-for-cookie trade), or undefined to go on.
   * `clientAddress` is the connection's peer (not X-Forwarded-For, which any client can write): behind a
   * reverse proxy every client shares the proxy's address for the token throttle.
   */
  async check(request: Request, clientAddress = "unknown"): Promise<Response | undefined> {
    const host = request.headers.get("host");
    if (!this.site.hostAllowed(host)) {
      throw new ApiError("MISDIRECTED_HOST", `Weft does not answer to the host name ${JSON.stringify(host ?? "")}. To reach it by this name, add it to WEFT_ALLOWED_HOSTS.`, { host });
    }
    // A webhook carries no session and no Weft token (its Authorization is the hook's own secret, checked by the hook):
    // the cross-site checks guard cookies and so do not apply, and its body may be a form or text.
    if (isHookPath(plainPath(request.url) ?? "")) return undefined;
    this.addresses.set(request, clientAddress);
    const url = new URL(request.url);
    if (isHookPath(url.pathname)) return undefined;
    const origin = request.headers.get("origin");
    if (origin !== null && !this.site.originAllowed(origin, host ?? "")) {
      throw new ApiError("FORBIDDEN_ORIGIN", `Requests from pages of ${JSON.stringify(origin)} are refused. To let that site use Weft's API, add it to WEFT_ALLOWED_ORIGINS.`, { origin });
    }
    const contentType = request.headers.get("content-type");
    // A body must be JSON: a form, text/plain or a Blob without a type is what a cross-site page can send without asking (a "simple" request).
    // A request with no body and no Content-Type (a generated client's DELETE, a POST …/duplicate) carries nothing to smuggle;
    // sent cross-site, its Origin is refused above, and a DELETE is never a simple request.
    if (!SAFE_METHODS.has(request.method) && !isJson(contentType) && !(contentType === null && hasNoBody(request))) {
      throw new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        `${request.method} requests with a body must send it as JSON with Content-Type: application/json (got ${contentType === null ? "a body without a Content-Type" : JSON.stringify(contentType)}); a request without a body needs no Content-Type.`,
        { contentType },
      );
    }
    const path = url.pathname;
    const principal = await this.authenticate(request, url);
    if (principal) setPrincipal(request, principal);
    const access = this.rules.accessFor(request.method, path, request.headers.get("upgrade")?.toLowerCase() === "websocket");
    if (access === "public") return isEditorPage(request.method, path) ? this.tradeToken(request, url) : undefined;
    if (!principal) {
      throw new ApiError(
        "UNAUTHENTICATED",
        `Sign in first: with your username and password on the editor's login page, the editor link Weft printed when it started, or "Authorization: Bearer <token>" (a personal API token, or the access token ${this.token.source === "env" ? "in WEFT_AUTH_TOKEN" : `in ${this.token.file}`}).`,
      );
    }
    if (!roleAtLeast(principal.role, access)) {
      const article = principal.role === "owner" || principal.role === "editor" ? "an" : "a";
      throw new ApiError(
        "FORBIDDEN",
        `${whoMay(access)} ${actionWords(request.method, path)}. You (${principal.username}) are ${article} ${principal.role}, who may ${ROLE_DUTIES[principal.role]}. Ask an owner for another role.`,
        {
          required: access,
          role: principal.role,
          // The route stays in the details for scripts and logs; the message speaks to people.
          route: `${request.method} ${path}`,
        },
      );
    }
    return undefined;
  }

  tokenMatches(candidate: string): boolean {
    return safeEqual(candidate, this.token.value);
  }

  /**
   * The sign-in form's access token, throttled per client address like every other token try: past the
   * limit even the right token is refused (429 with Retry-After) until the window has room again.
   */
  accessTokenSignIn(request: Request, candidate: string): boolean {
    return this.throttled(request, () => this.tokenMatches(candidate));
  }

  /** The access token (the bootstrap owner) or a personal API token, throttled per client address. */
  private bearer(request: Request, value: string): Promise<Principal | undefined> | Principal | undefined {
    // Only a personal token's form is looked up: anything else is a wrong try at once, counted before the next request.
    return this.throttled(request, () => (this.tokenMatches(value) ? this.accounts.bootstrapPrincipal() : value.startsWith(PERSONAL_TOKEN_PREFIX) ? this.accounts.tokenPrincipal(value) : undefined));
  }

  /**
   * Refuses every token try from an address past its limit, and counts the wrong ones as each check ends:
   * the access token's comparison is synchronous, so tries sent at once cannot slip past the limit, while
   * a script's parallel requests with a good token are never refused for being many. A success does not
   * clear earlier failures: one good token of one's own must not reset the count of guesses at another.
   */
  private throttled<T>(request: Request, check: () => T): T {
    const address = this.addresses.get(request) ?? "unknown";
    const wait = this.tokenGuesses.waitFor(address);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60_000);
      throw new ApiError("TOO_MANY_REQUESTS", `Too many wrong tokens from your address; every token from it is refused for ${minutes} minute${minutes === 1 ? "" : "s"}. Check the token you send.`, {
        retryAfterMs: wait,
        reason: "TOKEN_GUESSES",
      });
    }
    const settle = <V>(value: V): V => {
      if (value === undefined || value === false) this.tokenGuesses.failed(address);
      return value;
    };
    const result = check();
    return result instanceof Promise ? (result.then(settle) as T) : settle(result);
  }

  /** Who the request's credential signs in now (the WebSocket checks it again for each message). */
  principalFor(request: Request): Promise<Principal | undefined> {
    return this.authenticate(request, new URL(request.url));
  }

  private async authenticate(request: Request, url: URL): Promise<Principal | undefined> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer !== undefined) return this.bearer(request, bearer);
    // Some MCP clients are configured with a URL alone and cannot add a header; nowhere else, so the token stays out of other links.
    const queried = url.pathname === MCP_PATH ? url.searchParams.get("token") : null;
    if (queried !== null) return this.bearer(request, queried);
    const session = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
    return session === undefined ? undefined : this.accounts.sessionPrincipal(session);
  }

  /**
   * `/?token=…` (the link printed at start): with the right token, a session cookie and a redirect to
   * the same page without the token, so it leaves the address bar and the history.
   */
  private async tradeToken(request: Request, url: URL): Promise<Response | undefined> {
    const given = url.searchParams.get("token");
    if (given === null || !this.throttled(request, () => this.tokenMatches(given))) return undefined;
    url.searchParams.delete("token");
    const session = await this.accounts.openSession(this.accounts.bootstrapPrincipal().userId);
    return new Response(null, {
      status: 303,
      headers: { location: url.pathname + url.search, "set-cookie": sessionCookie(session, isSecureRequest(request, url)), "cache-control": "no-store", ...SECURITY_HEADERS },
    });
  }
}

/** No body by its framing: no chunked transfer and no (or a zero) Content-Length, as HTTP/1.1 reads a request (RFC 9112 §6.3). */
function hasNoBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return request.headers.get("transfer-encoding") === null && (length === null || length.trim() === "0");
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
