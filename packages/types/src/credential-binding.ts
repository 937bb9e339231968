/**
 * Where a stored credential may be sent: the URL patterns its owner binds it to. A pattern is
 * `scheme://host[:port][/path]` — `https://api.example.com` (every path on that origin),
 * `https://api.example.com/v1` (`/v1` and below it), `https://*.example.com` (any subdomain, not
 * the apex). Scheme, host and port must all match: a pattern without a port stands for the
 * scheme's own (443, 80). Patterns are compared with the parsed URL, never as text, so
 * `https://evil.test/x.example.com` or `https://api.example.com@evil.test` cannot pass for a bound host.
 */

export interface HostPattern {
  scheme: "http" | "https";
  /** Lower case; with `*.` the pattern covers the subdomains of the rest. */
  host: string;
  port: number;
  /** `/` for every path; else a prefix that ends at a segment boundary. */
  path: string;
}

const PATTERN = /^(https?):\/\/(\*\.)?([^/:?#@*\s[\]]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?(\/[^?#*\s]*)?$/i;
const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/** The pattern, or a sentence saying what is wrong with it and how it should look. */
export function parseHostPattern(text: string): HostPattern | string {
  const match = PATTERN.exec(text.trim());
  const example = "write it as https://api.example.com, https://api.example.com/v1 or https://*.example.com";
  if (!match) return `"${text}" is not a host pattern: ${example} (scheme and host, an optional port and path; no query, user name or other wildcards).`;
  const [, rawScheme, wildcard, rawHost, rawPort, rawPath] = match as unknown as [string, string, string | undefined, string, string | undefined, string | undefined];
  const scheme = rawScheme.toLowerCase() === "https" ? "https" : "http";
  let parsed: URL;
  try {
    parsed = new URL(`${scheme}://${rawHost}${rawPort !== undefined ? `:${rawPort}` : ""}/`);
  } catch {
    return `"${text}" has no valid host; ${example}.`;
  }
  const port = parsed.port === "" ? DEFAULT_PORTS[scheme] : Number(parsed.port);
  if (wildcard && parsed.hostname.split(".").length < 2) return `"${text}" covers the subdomains of a single label; name a domain such as *.example.com.`;
  const path = rawPath === undefined || rawPath === "/" ? "/" : new URL(rawPath, parsed).pathname.replace(/\/+$/, "") || "/";
  return { scheme, host: `${wildcard ?? ""}${parsed.hostname}`, port, path };
}

/** The pattern as stored and shown: normalised (lower-case host, default port left out, no trailing slash). */
export function formatHostPattern(p: HostPattern): string {
  const port = p.port === DEFAULT_PORTS[p.scheme] ? "" : `:${p.port}`;
  return `${p.scheme}://${p.host}${port}${p.path === "/" ? "" : p.path}`;
}

function matches(p: HostPattern, url: URL): boolean {
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== p.scheme) return false;
  const port = url.port === "" ? DEFAULT_PORTS[p.scheme] : Number(url.port);
  if (port !== p.port) return false;
  const host = url.hostname;
  const hostOk = p.host.startsWith("*.") ? host.endsWith(p.host.slice(1)) && host.length > p.host.length - 1 : host === p.host;
  if (!hostOk) return false;
  return p.path === "/" || url.pathname === p.path || url.pathname.startsWith(`${p.path}/`);
}

/** A credential's stored patterns, parsed once for all the URLs of a request (malformed ones left out: they match nothing). */
export function hostPatternsOf(texts: readonly string[]): HostPattern[] {
  return texts.map(parseHostPattern).filter((p): p is HostPattern => typeof p !== "string");
}

/** Whether a credential bound to `patterns` (`hostPatternsOf`) may be sent with a request to `url`. */
export function credentialMayGoTo(patterns: readonly HostPattern[], url: URL): boolean {
  if (url.username !== "" || url.password !== "") return false;
  return patterns.some((p) => matches(p, url));
}
