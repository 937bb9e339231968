import { z } from "zod";
import type { ApiRoute } from "./openapi-routes.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import { PROTOCOL_PATHS } from "./openapi-protocols.ts";
import { API_ERROR_CODES } from "@weft/types";

type Json = { [key: string]: unknown };

/** A route the server registered, as Elysia lists it. */
export interface LiveRoute {
  method: string;
  path: string;
}

/** Marks an operation the server answers but the route registry does not describe (the OpenAPI test fails on it). */
export const UNDESCRIBED = "x-weft-undescribed";

/**
 * The `$defs` zod emits for a recursive schema (a JSON value, a nested condition), moved to components.schemas: a
 * `#/$defs/…` reference resolves against the document's root, where there is no `$defs`. The same set of definitions
 * (most operations share them) is stored once.
 */
class SharedSchemas {
  readonly schemas: Record<string, Json> = {};
  private readonly prefixes = new Map<string, string>();

  hoist(schema: Json): Json {
    const { $defs, ...rest } = schema as Json & { $defs?: Record<string, Json> };
    if (!$defs) return rest;
    const key = JSON.stringify($defs);
    const known = this.prefixes.get(key);
    const prefix = known ?? `Def${this.prefixes.size + 1}`;
    const rewrite = (value: unknown): Json => JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\/([^"]+)"/g, (_, name: string) => JSON.stringify(`#/components/schemas/${prefix}${name}`))) as Json;
    if (known === undefined) {
      this.prefixes.set(key, prefix);
      for (const [name, def] of Object.entries($defs)) this.schemas[`${prefix}${name}`] = rewrite(def);
    }
    return rewrite(rest);
  }

  /** The JSON Schema of what a client sends (`io: "input"`: defaults optional, coerced query values as given) or receives (`"output"`). */
  jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Json {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
    return this.hoist(rest);
  }
}

const ErrorBody = z.object({
  error: z.object({
    code: z.string().describe(`what went wrong, for callers to branch on: ${API_ERROR_CODES.join(", ")}, or a stored record's own code`),
    message: z.string().describe("what is wrong and how to fix it, for people"),
    details: z.record(z.string(), z.unknown()).describe("the facts behind the message (VALIDATION_FAILED: `issues`, each with path, message and code)"),
  }),
});

/** The refusals every operation may answer, each `{ error: { code, message, details } }` (components.responses). */
const ERROR_RESPONSES: Record<string, { description: string; codes: string }> = {
  BadRequest: { description: "The input is wrong: the message says what and how to fix it", codes: "VALIDATION_FAILED, INVALID_JSON, INVALID_UTF8, JSON_TOO_DEEP, FORBIDDEN_KEY" },
  Unauthenticated: { description: 'No valid credential. Carries `WWW-Authenticate: Bearer realm="weft"`', codes: "UNAUTHENTICATED" },
  Forbidden: { description: "The caller's role may not do this, or the request came from a page of another site", codes: "FORBIDDEN, FORBIDDEN_ORIGIN, BUILT_IN" },
  NotFound: { description: "Nothing with this id", codes: "NOT_FOUND" },
  Conflict: { description: "The state changed meanwhile or the id is taken", codes: "REVISION_CONFLICT, ALREADY_EXISTS, CONFLICT" },
  UnsupportedMediaType: { description: "A body was sent that is not JSON", codes: "UNSUPPORTED_MEDIA_TYPE" },
  TooLarge: { description: "The body is over the size limit", codes: "PAYLOAD_TOO_LARGE" },
};

const errorRef = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/** Which refusals an operation can answer, from what it takes: input can be wrong, an id can be unknown, a write can conflict. */
function errorResponses(method: string, path: string, route: ApiRoute): Json {
  const hasPathId = /:\w+/.test(path);
  const takesBody = route.body !== undefined;
  return {
    ...(takesBody || route.query || hasPathId ? { "400": errorRef("BadRequest") } : {}),
    "401": errorRef("Unauthenticated"),
    "403": errorRef("Forbidden"),
    ...(hasPathId ? { "404": errorRef("NotFound") } : {}),
    ...(method !== "GET" ? { "409": errorRef("Conflict") } : {}),
    ...(takesBody ? { "413": errorRef("TooLarge"), "415": errorRef("UnsupportedMediaType") } : {}),
  };
}

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");
const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function operation(route: ApiRoute | undefined, live: LiveRoute, shared: SharedSchemas): Json {
  const parameters: Json[] = [...live.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  if (!route) return { summary: "(not described)", [UNDESCRIBED]: true, parameters, responses: { default: { $ref: "#/components/responses/Error" } } };
  const query = route.query ? (shared.jsonSchema(route.query) as { properties?: Json; required?: string[] }) : undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    parameters.push({ name, in: "query", required: query?.required?.includes(name) ?? false, schema });
  }
  const success =
    route.status === 204
      ? { description: "Done (no body)" }
      : { description: "Success", content: { [route.mediaType ?? "application/json"]: { schema: route.response ? shared.jsonSchema(route.response, "output") : {} } } };
  return {
    operationId: `${live.method.toLowerCase()}${live.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    tags: [route.tag],
    summary: route.summary,
    parameters,
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: { "application/json": { schema: shared.jsonSchema(route.body) } } } } : {}),
    responses: {
      [String(route.status ?? 200)]: success,
      ...(route.error ? {} : errorResponses(live.method, live.path, route)),
      default: route.error
        ? { description: "A refusal or failure, in this protocol's shape", content: { "application/json": { schema: shared.jsonSchema(route.error, "output") } } }
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
  const shared = new SharedSchemas();
  for (const r of live) {
    const documented = r.path.startsWith("/api/") || r.path.startsWith("/v1/") || r.path.startsWith("/a2a/") || r.path === "/.well-known/agent-card.json";
    if (!documented || !["GET", "POST", "PUT", "DELETE", "PATCH"].includes(r.method.toUpperCase())) continue;
    (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(described.get(operationKey(r.method, r.path)), r, shared);
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
      schemas: { Error: shared.jsonSchema(ErrorBody, "output"), ...shared.schemas },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The access token Weft printed at start (WEFT_AUTH_TOKEN or <dataDir>/access-token)." },
        session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE },
      },
      responses: {
        Error: { description: "A refusal or failure: { error: { code, message, details } }", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ...Object.fromEntries(
          Object.entries(ERROR_RESPONSES).map(([name, { description, codes }]) => [
            name,
            {
              description: `${description} (code: ${codes})`,
              ...(name === "Unauthenticated" ? { headers: { "WWW-Authenticate": { schema: { type: "string" } } } } : {}),
              content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
            },
          ]),
        ),
      },
    },
  };
}
