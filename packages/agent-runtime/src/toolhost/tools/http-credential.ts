import { credentialMayGoTo, hostPatternsOf, type CredentialResolver, type CredentialUse, type ResolvedCredential } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";

/** A named credential as one http.request call applies it: its headers, for the URLs it may go to. */
export interface AppliedCredential {
  /** The credential's headers for `hop`, or none: only on the first request's origin, and only where it is bound. */
  headersFor(hop: URL): Record<string, string>;
}

function credentialHeaders(credential: ResolvedCredential): Record<string, string> {
  switch (credential.kind) {
    case "bearer":
      return { authorization: `Bearer ${credential.secret}` };
    case "header":
      return { [credential.header.toLowerCase()]: credential.secret };
    case "basic":
      return { authorization: `Basic ${Buffer.from(`${credential.username}:${credential.secret}`).toString("base64")}` };
    default: {
      const never: never = credential;
      return never;
    }
  }
}

/**
 * Looks the credential up for the user the call runs for and checks the URL against the hosts it is
 * bound to, before anything is sent; throws a ToolFailure naming the credential and its hosts when it
 * may not go there. A redirect keeps it only on the same origin, and only where it is bound.
 */
export async function applyCredential(name: string, url: URL, store: CredentialResolver | undefined, use: CredentialUse): Promise<AppliedCredential> {
  if (!store) throw new ToolFailure("E_UNKNOWN_CREDENTIAL", `No credential store is configured here, so the credential "${name}" cannot be used.`, { credential: name });
  const grant = await store.resolve(name, use);
  if (!grant.ok) throw new ToolFailure(grant.code, grant.message, { credential: name });
  const { hosts } = grant;
  // Parsed once: every hop of the request (redirects) is checked against the same patterns.
  const bound = hostPatternsOf(hosts);
  if (!credentialMayGoTo(bound, url)) {
    throw new ToolFailure(
      "E_CREDENTIAL_HOST_NOT_ALLOWED",
      `The credential "${name}" may only be sent to ${hosts.join(", ")}; ${url.origin}${url.pathname} is not one of them, so nothing was sent. Use a URL there, or ask an owner to add this host to the credential (Settings → Credentials).`,
      { credential: name, hosts: [...hosts], url: `${url.origin}${url.pathname}` },
    );
  }
  const headers = credentialHeaders(grant.credential);
  return { headersFor: (hop) => (hop.origin === url.origin && credentialMayGoTo(bound, hop) ? headers : {}) };
}
