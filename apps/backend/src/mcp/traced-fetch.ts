import { context, propagation } from "@opentelemetry/api";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * `fetch` for the MCP HTTP transports: adds the active trace's W3C `traceparent` (and `tracestate`) so a tool call's
 * server joins the run's trace. Without tracing no propagator is registered and the request goes out as given.
 */
export const tracedFetch: FetchLike = (url, init) => {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const names = Object.keys(carrier);
  if (names.length === 0) return fetch(url, init);
  const headers = new Headers(init?.headers);
  for (const name of names) if (!headers.has(name)) headers.set(name, carrier[name]);
  return fetch(url, { ...init, headers });
};
