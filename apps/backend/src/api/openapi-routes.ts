import { z } from "zod";
import {
  AgentChangeSchema,
  AgentProfileSchema,
  BuilderSettingsSchema,
  EffectivePermissionsSchema,
  CredentialInputSchema,
  PermissionAnswerSchema,
  PermissionPolicySchema,
  SceneSchema,
  SessionScopeSchema,
  WorkflowSummarySchema,
} from "@weft/types";
import { CreateLlmProfileSchema, UpdateLlmProfileSchema } from "../llm/profile-schemas.ts";
import { McpSettingsSchema } from "../mcp/mcp-config.ts";
import { RunRecordSchema } from "../storage/run-repository.ts";
import { CreateBody, DuplicateBody, UpdateBody, ValidateBody } from "../workflows/workflows-api.ts";
import { EventsQuery, ListQuery as RunListQuery, RerunBody, StartBody, ValueQuery } from "../runs/runs-api.ts";
import { PasswordChangeSchema, PrincipalViewSchema, SignInSchema, TokenCreateSchema } from "./auth.ts";
import { UserCreateSchema, UserUpdateSchema } from "../accounts/users-api.ts";
import { TokenViewSchema, UserViewSchema } from "../accounts/account-records.ts";
import { ConversationsQuery } from "../agents/agents-api.ts";
import { MessageBody } from "./conversations.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One route as the OpenAPI document describes it: the zod schemas its handler reads with, where it has them. */
export interface ApiRoute {
  method: HttpMethod;
  /** Elysia's form, `:id` for a parameter. */
  path: string;
  tag: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** The success answer's body; absent where the answer is described in docs/api.md only. */
  response?: z.ZodType;
  /** The success status (default 200). */
  status?: number;
}

const route = (method: HttpMethod, path: string, tag: string, summary: string, more: Omit<ApiRoute, "method" | "path" | "tag" | "summary"> = {}): ApiRoute => ({ method, path, tag, summary, ...more });

/** `{ <key>: document, baseRevision }`, the update body of every revisioned document kind. */
const documentUpdate = (key: string) => z.object({ [key]: z.unknown(), baseRevision: z.number().int().min(0) }).strict();

/** CRUD of a revisioned document kind (documentRoutes). */
function documentRoutes(segment: string, tag: string, key: string, schema: z.ZodType): ApiRoute[] {
  const base = `/api/${segment}`;
  return [
    route("GET", base, tag, `List ${segment}`),
    route("POST", base, tag, `Create one of ${segment}`, { body: schema, status: 201 }),
    route("GET", `${base}/:id`, tag, `Get one of ${segment}`),
    route("PUT", `${base}/:id`, tag, `Update one of ${segment} (optimistic concurrency on baseRevision)`, { body: documentUpdate(key) }),
    route("DELETE", `${base}/:id`, tag, `Delete one of ${segment}`),
  ];
}

const Started = z.object({ runId: z.string(), status: z.literal("queued"), queuePosition: z.number().int() });

/** Every route under /api/; the OpenAPI test fails when the server registers one that is missing here. */
export const API_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/health", "health", "Liveness and version (public)"),
  route("GET", "/api/nodes", "health", "The node catalog: every node type with its ports"),
  route("GET", "/api/openapi.json", "health", "This OpenAPI document"),
  route("GET", "/api/reference", "health", "This document as a browsable page (HTML)"),

  route("GET", "/api/auth/session", "auth", "Who is signed in, with their role", { response: z.object({ principal: PrincipalViewSchema }) }),
  route("POST", "/api/auth/session", "auth", "Sign in with username and password, or the access token, for a session cookie (public)", { body: SignInSchema }),
  route("DELETE", "/api/auth/session", "auth", "Sign out (ends the session on the server)"),
  route("PUT", "/api/auth/password", "auth", "Change your own password (ends your other sessions)", { body: PasswordChangeSchema }),
  route("GET", "/api/auth/tokens", "auth", "Your personal API tokens (never their secrets)", { response: z.object({ tokens: z.array(TokenViewSchema) }) }),
  route("POST", "/api/auth/tokens", "auth", "Create a personal API token: the secret is in this answer only", {
    body: TokenCreateSchema,
    status: 201,
    response: z.object({ token: TokenViewSchema, secret: z.string() }),
  }),
  route("DELETE", "/api/auth/tokens/:id", "auth", "Revoke one of your personal API tokens"),
  route("GET", "/api/users", "users", "List users (owners)", { response: z.object({ users: z.array(UserViewSchema) }) }),
  route("POST", "/api/users", "users", "Create a user with a role and password (owners)", { body: UserCreateSchema, status: 201, response: z.object({ user: UserViewSchema }) }),
  route("PUT", "/api/users/:id", "users", "Change a user's name, role or password (owners; a new password ends their sessions)", {
    body: UserUpdateSchema,
    response: z.object({ user: UserViewSchema }),
  }),
  route("DELETE", "/api/users/:id", "users", "Delete a user with their sessions and tokens (owners)"),
  route("GET", "/api/users/:id/tokens", "users", "A user's personal API tokens, never their secrets (owners)", { response: z.object({ tokens: z.array(TokenViewSchema) }) }),
  route("DELETE", "/api/users/:id/tokens/:tokenId", "users", "Revoke one of a user's personal API tokens (owners)"),

  route("GET", "/api/workflows", "workflows", "List workflows", { response: z.object({ workflows: z.array(WorkflowSummarySchema) }) }),
  route("POST", "/api/workflows", "workflows", "Create a workflow", { body: CreateBody, status: 201 }),
  route("POST", "/api/workflows/validate", "workflows", "Validate a workflow without saving it", { body: ValidateBody }),
  route("POST", "/api/workflows/import", "workflows", "Import an exported workflow (a free id is chosen)", { status: 201 }),
  route("GET", "/api/workflows/:id", "workflows", "Get a workflow"),
  route("PUT", "/api/workflows/:id", "workflows", "Update a workflow (optimistic concurrency on baseRevision)", { body: UpdateBody }),
  route("DELETE", "/api/workflows/:id", "workflows", "Delete a workflow"),
  route("GET", "/api/workflows/:id/export", "workflows", "Export a workflow as a file"),
  route("POST", "/api/workflows/:id/duplicate", "workflows", "Duplicate a workflow", { body: DuplicateBody, status: 201 }),
  route("GET", "/api/workflows/:id/callers", "workflows", "The workflows that call this skill"),

  route("POST", "/api/workflows/:id/runs", "runs", "Start a run", { body: StartBody, response: Started, status: 202 }),
  route("GET", "/api/runs", "runs", "List runs, newest first: summaries without inputs and outputs", {
    query: RunListQuery,
    response: z.object({ runs: z.array(RunRecordSchema.omit({ inputs: true, outputs: true })) }),
  }),
  route("GET", "/api/runs/:id", "runs", "A run with its observations and the workflow as it ran"),
  route("GET", "/api/runs/:id/events", "runs", "A run's stored events, a page at a time", { query: EventsQuery }),
  route("GET", "/api/runs/:id/value", "runs", "One value of a run whole (the link of a large value's preview)", { query: ValueQuery, response: z.object({ value: z.unknown() }) }),
  route("GET", "/api/streams/:id/events", "runs", "Any stream's stored events, a page at a time", { query: EventsQuery }),
  route("POST", "/api/runs/:id/cancel", "runs", "Cancel a run"),
  route("POST", "/api/runs/:id/rerun", "runs", "Run a past run again", { body: RerunBody, response: Started, status: 202 }),

  ...documentRoutes("agents", "agents", "agent", AgentProfileSchema),
  route("GET", "/api/agents/:id/conversations", "agents", "An agent's conversations", { query: ConversationsQuery }),
  route("GET", "/api/agents/:id/permissions", "agents", "An agent's effective permissions (the owner's ceiling ∩ its own rules)", { response: EffectivePermissionsSchema }),
  route("GET", "/api/agents/:id/changes", "agents", "Who changed an agent profile, and what it became", { query: ConversationsQuery, response: z.object({ changes: z.array(AgentChangeSchema) }) }),
  route("POST", "/api/agents/:id/messages", "agents", "Send an agent a message", { body: MessageBody, status: 202 }),
  route("GET", "/api/conversations/:id", "agents", "A conversation"),
  route("POST", "/api/conversations/:id/cancel", "agents", "Cancel a conversation's turn"),
  route("POST", "/api/conversations/:id/permissions/:requestId", "agents", "Answer a permission request", { body: PermissionAnswerSchema }),

  ...documentRoutes("scenes", "scenes", "scene", SceneSchema),
  route("POST", "/api/scenes/:id/start", "scenes", "Start a scene"),
  route("POST", "/api/scenes/:id/pause", "scenes", "Pause a scene"),
  route("POST", "/api/scenes/:id/resume", "scenes", "Resume a scene"),
  route("POST", "/api/scenes/:id/stop", "scenes", "Stop a scene"),
  route("POST", "/api/scenes/:id/replay", "scenes", "Replay a scene"),
  route("POST", "/api/scenes/:id/messages", "scenes", "Post a message into a scene"),
  route("POST", "/api/scenes/:id/agents/:instanceId/answer", "scenes", "Answer an agent's question"),
  route("POST", "/api/scenes/:id/agents/:instanceId/permissions/:requestId", "scenes", "Answer an agent's permission request", { body: PermissionAnswerSchema }),
  route("GET", "/api/scenes/:id/state", "scenes", "A scene's current state"),
  route("GET", "/api/scenes/:id/timeline", "scenes", "A scene's timeline"),

  route("GET", "/api/settings/permissions", "settings", "The permission policy"),
  route("PUT", "/api/settings/permissions", "settings", "Replace the permission policy", { body: PermissionPolicySchema }),
  route("GET", "/api/settings/mcp", "settings", "The configured MCP servers (mcpServers JSON)"),
  route("PUT", "/api/settings/mcp", "settings", "Replace the configured MCP servers", { body: McpSettingsSchema }),

  route("GET", "/api/llm-profiles", "llm-profiles", "List LLM profiles (keys never returned)"),
  route("POST", "/api/llm-profiles", "llm-profiles", "Create an LLM profile", { body: CreateLlmProfileSchema, status: 201 }),
  route("GET", "/api/llm-profiles/:id", "llm-profiles", "Get an LLM profile"),
  route("PUT", "/api/llm-profiles/:id", "llm-profiles", "Update an LLM profile", { body: UpdateLlmProfileSchema }),
  route("DELETE", "/api/llm-profiles/:id", "llm-profiles", "Delete an LLM profile"),
  route("POST", "/api/llm-profiles/:id/test", "llm-profiles", "Test the profile's connection with a tiny request"),

  route("GET", "/api/credentials", "credentials", "List credentials by name (secrets never returned)"),
  route("POST", "/api/credentials", "credentials", "Store a credential", { body: CredentialInputSchema, status: 201 }),
  route("PUT", "/api/credentials/:name", "credentials", "Replace a credential", { body: CredentialInputSchema }),
  route("DELETE", "/api/credentials/:name", "credentials", "Delete a credential"),

  route("GET", "/api/builder/settings", "builder", "The Builder's settings"),
  route("PUT", "/api/builder/settings", "builder", "Replace the Builder's settings", { body: BuilderSettingsSchema }),
  route("GET", "/api/builder/sessions", "builder", "List Builder sessions"),
  route("POST", "/api/builder/sessions", "builder", "Start a Builder session"),
  route("GET", "/api/builder/sessions/:id", "builder", "A Builder session"),
  route("POST", "/api/builder/sessions/:id/messages", "builder", "Send the Builder a message"),
  route("PUT", "/api/builder/sessions/:id/scope", "builder", "Set what the session may change", { body: SessionScopeSchema }),
  route("POST", "/api/builder/sessions/:id/cancel", "builder", "Cancel the session's turn"),
  route("POST", "/api/builder/sessions/:id/interrupt", "builder", "Interrupt the session's turn"),
  route("POST", "/api/builder/sessions/:id/apply", "builder", "Apply staged change sets"),
  route("GET", "/api/builder/sessions/:id/audit", "builder", "The session's audit log"),
  route("GET", "/api/builder/sessions/:id/change-sets", "builder", "The session's change sets"),
  route("GET", "/api/builder/sessions/:id/change-sets/:csId", "builder", "A change set"),
  route("GET", "/api/builder/sessions/:id/change-sets/:csId/preview", "builder", "A change set's preview"),
  route("POST", "/api/builder/sessions/:id/change-sets/:csId/discard", "builder", "Discard a change set"),
  route("POST", "/api/builder/sessions/:id/change-sets/:csId/validate", "builder", "Validate a change set"),
];
