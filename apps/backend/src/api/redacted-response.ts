import type { SecretRedactor } from "@weft/types";

/**
 * A JSON answer with every stored secret replaced: the last guard for what is built in memory
 * (an LLM error in a Builder turn, an error message) rather than read back from redacted storage.
 * Other answers (the editor's files, NDJSON streams, the WebSocket upgrade) are not touched:
 * `undefined`, decided synchronously, because Elysia takes even a promise of undefined as a new answer.
 */
export function redactedResponse(response: unknown, redactor: SecretRedactor): Promise<Response> | undefined {
  if (!(response instanceof Response) || !response.headers.get("content-type")?.startsWith("application/json")) return undefined;
  return response.text().then((text) => new Response(redactor.json(text), { status: response.status, statusText: response.statusText, headers: response.headers }));
}
