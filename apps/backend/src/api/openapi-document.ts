import { z } from "zod";
import type { ApiRoute } from "./openapi-routes.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import { PROTOCOL_PATHS } from "./openapi-protocols.ts";

type Json = { [key: string]: unknown };

/** A route the server registered, as Elysia lists it. */
export interface LiveRoute {
  method: string;
  path: string;
}

/** Marks an operation the server answers but the route registry does not describe (the OpenAPI test fails on it). */
export const UNDESCRIBED = "x-weft-undescribed";

/** The JSON Schema of what a client sends (`io: "input"`: defaults optional, coerced query values as given) or receives (`"output"`). */
function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
}

const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }) });

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");
const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function operation(route: ApiRoute | undefined, live: LiveRoute): Json {
  const parameters: Json[] = [...live.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  if (!route) return { summary: "(not described)", [UNDESCRIBED]: true, parameters, responses: { default: { $ref: "#/components/responses/Error" } } };
  const query = route.query ? (jsonSchema(route.query) as { properties?: Json; required?: string[] }) : undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    parameters.push({ name, in: "query", required: query?.required?.includes(name) ?? false, schema });
  }
  const success = { description: "Success", content: { "application/json": { schema: route.response ? jsonSchema(route.response, "output") : {} } } };
  return {
    operationId: `${live.method.toLowerCase()}${live.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    tags: [route.tag],
    summary: route.summary,
    parameters,
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: { "application/json": { schema: jsonSchema(route.body) } } } } : {}),
    responses: {
      [String(route.status ?? 200)]: success,
      default: route.error
        ? { description: "A refusal or failure, in this protocol's shape", content: { "application/json": { schema: jsonSchema(route.error, "output") } } }
        : { $ref: "#/components/responses/Error" },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the routes the server answers under /api/ (and the OpenAI-compatible /v1/, A2A's cards and /a2a/), described from the zod
 * schemas the handlers read with. A live route missing from the registry is still listed, marked
 * UNDESCRIBED, so the document never hides one.
 */
export function openApiDocument(routes: readonly ApiRoute[], live: readonly LiveRoute[], version: string): Json {
  const described = new Map(routes.map((r) => [operationKey(r.method, r.path), r]));
  const paths: Record<string, Json> = {};
  for (const r of live) {
    const documented = r.path.startsWith("/api/") || r.path.startsWith("/v1/") || r.path.startsWith("/a2a/") || r.path === "/.well-known/agent-card.json";
    if (!documented || !["GET", "POST", "PUT", "DELETE", "PATCH"].includes(r.method.toUpperCase())) continue;
    (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(described.get(operationKey(r.method, r.path)), r);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Weft API",
      version,
      description:
        "Generated from the route schemas. docs/api.md tells the story; a request body is sent as Content-Type: application/json (a request without a body needs no Content-Type). /mcp, /ws and /metrics speak MCP, WebSocket and Prometheus' format; /v1/ speaks OpenAI's Chat Completions (its errors in OpenAI's shape).",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }, { session: [] }],
    paths: { ...paths, ...PROTOCOL_PATHS },
    components: {
      schemas: { Error: jsonSchema(ErrorBody) },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The access token Weft printed at start (WEFT_AUTH_TOKEN or <dataDir>/access-token)." },
        session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE },
      },
      responses: { Error: { description: "A refusal or failure: { error: { code, message, details } }", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } } },
    },
  };
}
