import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { nonPublicRange } from "./address-policy.ts";
import { NetFailure } from "./net-failure.ts";

/** Whether a request may reach only public addresses, or (a rule allows its URL) any address. */
export type AddressScope = "public" | "any";

export interface ExchangeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  scope: AddressScope;
  signal: AbortSignal;
}

function privateRefusal(url: URL, address: string, range: string): NetFailure {
  return new NetFailure(
    "E_PRIVATE_ADDRESS",
    `${url.host} is at ${address}, a ${range} address, which outbound requests may not reach by default (SSRF defence). To allow it, add a permission rule: allow http.request on ${url.origin}/**.`,
    { host: url.hostname, address, range },
  );
}

/**
 * The lookup the socket connects with: it resolves the name, drops addresses outside `scope`, and
 * hands the socket only the checked ones — the address checked is the address connected to, so a
 * name that re-resolves elsewhere between check and connect (DNS rebinding) gains nothing.
 */
function checkedLookup(url: URL, scope: AddressScope, refused: (failure: NetFailure) => void): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = scope === "any" ? addresses : addresses.filter((a) => nonPublicRange(a.address) === undefined);
      if (allowed.length === 0) {
        const first = addresses[0];
        const failure = first ? privateRefusal(url, first.address, nonPublicRange(first.address) ?? "unknown") : new NetFailure("E_NETWORK", `${hostname} has no address.`);
        refused(failure);
        return callback(failure, "", 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      const [chosen] = allowed as [LookupAddress];
      return callback(null, chosen.address, chosen.family);
    });
  };
}

/**
 * One HTTP exchange (no redirects followed) to an address checked against `scope`: an address
 * literal is checked here, a name in the socket's lookup. Resolves when the response head arrives.
 */
export function pinnedExchange(request: ExchangeRequest): Promise<http.IncomingMessage> {
  const { url, scope } = request;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0 && scope === "public") {
    const range = nonPublicRange(host);
    if (range !== undefined) return Promise.reject(privateRefusal(url, host, range));
  }
  return new Promise((resolve, reject) => {
    let refusal: NetFailure | undefined;
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers,
        lookup: checkedLookup(url, scope, (failure) => (refusal = failure)),
        signal: request.signal,
        agent: false,
      },
      resolve,
    );
    req.on("error", (error) => reject(refusal ?? error));
    req.end(request.body);
  });
}
