import { isIP } from "node:net";

export interface SitePolicyOptions {
  /** The address the server listens on; a specific one is a valid Host, a wildcard (0.0.0.0, ::) is not. */
  boundHost: string;
  /** Extra host names a browser may reach Weft by (`WEFT_ALLOWED_HOSTS`), e.g. a reverse proxy's. */
  allowedHosts?: readonly string[];
  /** Extra origins whose pages may call the API (`WEFT_ALLOWED_ORIGINS`), e.g. `https://weft.example.com`. */
  allowedOrigins?: readonly string[];
}

/** The hostname of a `Host` header value (`[::1]:3000` → `::1`), or undefined when it is not one. */
export function hostnameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) return undefined;
    return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  } catch {
    return undefined;
  }
}

function ownHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).host;
  } catch {
    return undefined;
  }
}

function isLoopback(hostname: string): boolean {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (isIP(hostname) === 4) return hostname.startsWith("127.");
  return hostname === "::1";
}

function normaliseOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where requests may come from. The Host check defeats DNS rebinding (a foreign name resolving to
 * this machine); the Origin check stops pages of other sites, whatever the browser lets them send.
 */
export class SitePolicy {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(options: SitePolicyOptions) {
    const bound = options.boundHost.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    const wildcard = bound === "0.0.0.0" || bound === "::" || bound === "";
    this.hosts = new Set([...(wildcard ? [] : [bound]), ...(options.allowedHosts ?? []).map((h) => hostnameOf(h.trim()) ?? h.trim().toLowerCase())]);
    this.origins = new Set((options.allowedOrigins ?? []).map((o) => normaliseOrigin(o.trim()) ?? o.trim()));
  }

  hostAllowed(host: string | null): boolean {
    const hostname = host ? hostnameOf(host) : undefined;
    return hostname !== undefined && (isLoopback(hostname) || this.hosts.has(hostname));
  }

  /**
   * `origin` is the request's Origin header. The server's own pages are those on the host its (checked)
   * Host header names, by http or https (a TLS proxy in front changes the scheme, not the host).
   */
  originAllowed(origin: string, host: string): boolean {
    const normalised = normaliseOrigin(origin);
    if (normalised === undefined) return false;
    return new URL(normalised).host === ownHost(host) || this.origins.has(normalised);
  }
}
