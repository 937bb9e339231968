import { ErrorBodySchema, fail, ok, type ApiResult } from "./errors.ts";
import { messageOf } from "@weft/types";

type Listener = () => void;
const listeners = new Set<Listener>();

/** Every client calls this on a 401: the editor's session ended, or never began. */
export function reportSignedOut(): void {
  for (const listener of listeners) listener();
}

export function onSignedOut(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const refusedListeners = new Set<Listener>();

/** Every client calls this on a 403: the user's role may have changed since the editor read it. */
export function reportRefused(): void {
  for (const listener of refusedListeners) listener();
}

export function onRefused(listener: Listener): () => void {
  refusedListeners.add(listener);
  return () => refusedListeners.delete(listener);
}

/** What the login page sends: a user's username and password, or the install's access token. */
export type Credentials = { token: string } | { username: string; password: string };

/** Trades the credentials for the server's session cookie (HttpOnly: the page never holds it). A bare string is the access token. */
export async function signIn(credentials: Credentials | string, fetcher: typeof fetch = fetch): Promise<ApiResult<true>> {
  const sent =
    typeof credentials === "string"
      ? { token: credentials.trim() }
      : "token" in credentials
        ? { token: credentials.token.trim() }
        : { username: credentials.username.trim(), password: credentials.password };
  let response: Response;
  try {
    response = await fetcher("/api/auth/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sent) });
  } catch (error) {
    return fail({ code: "NETWORK_ERROR", status: 0, message: `Could not reach the server (${messageOf(error)}).` });
  }
  if (response.ok) return ok(true);
  const body = ErrorBodySchema.safeParse(await response.json().catch(() => undefined));
  return fail(body.success ? { ...body.data.error, status: response.status } : { code: "SERVER_ERROR", status: response.status, message: `The server answered ${response.status}.` });
}
