/** Talking to a real Weft server from tests, as a script does; free of the server's own modules, so a test in another environment (happy-dom) can use it. */

/** The access token test servers use (createServer refuses tokens under 16 characters). */
export const TEST_TOKEN = "weft-test-access-token";

/** One request as a script would send it: JSON content type on every state-changing method, unless `headers` says otherwise. */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  if (method !== "GET" && method !== "HEAD") (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
