import type { Role } from "../accounts/roles.ts";

/** Who may call a route: anyone who reaches the server, or a signed-in principal of at least this role. */
export type Access = "public" | Role;

export interface RouteRule {
  /** As Elysia registers it: GET, POST, PUT, DELETE, WS (the /ws upgrade), ALL (every method). */
  method: string;
  /** Elysia's form: `:name` for one segment, a trailing `/*` for the editor's files. */
  path: string;
  access: Access;
}

const rule = (method: string, path: string, access: Access): RouteRule => ({ method, path, access });

/** The routes of a revisioned document kind and its versions: read by viewers, changed (a restore is a save) by editors. */
const documents = (segment: string): RouteRule[] => [
  rule("GET", `/api/${segment}`, "viewer"),
  rule("POST", `/api/${segment}`, "editor"),
  rule("GET", `/api/${segment}/:id`, "viewer"),
  rule("PUT", `/api/${segment}/:id`, "editor"),
  rule("DELETE", `/api/${segment}/:id`, "editor"),
  rule("GET", `/api/${segment}/:id/versions`, "viewer"),
  rule("GET", `/api/${segment}/:id/versions/:n`, "viewer"),
  rule("GET", `/api/${segment}/:id/versions/:n/diff/:to`, "viewer"),
  rule("POST", `/api/${segment}/:id/versions/:n/restore`, "editor"),
];

/**
 * Every route of the server and the least role that may call it: viewers read and watch runs, editors
 * change and run, owners manage users, settings, permissions, LLM profiles, credentials and MCP servers.
 * A route missing here is refused to all but owners, and `route-rules.test.ts` fails on it.
 */
export const ROUTE_RULES: readonly RouteRule[] = [
  rule("GET", "/api/health", "public"),
  rule("GET", "/api/nodes", "viewer"),
  rule("GET", "/api/openapi.json", "viewer"),
  rule("GET", "/api/reference", "viewer"),

  rule("GET", "/api/auth/session", "viewer"),
  rule("POST", "/api/auth/session", "public"),
  rule("DELETE", "/api/auth/session", "viewer"),
  rule("PUT", "/api/auth/password", "viewer"),
  rule("GET", "/api/auth/tokens", "viewer"),
  rule("POST", "/api/auth/tokens", "viewer"),
  rule("DELETE", "/api/auth/tokens/:id", "viewer"),
  rule("GET", "/api/users", "owner"),
  rule("POST", "/api/users", "owner"),
  rule("PUT", "/api/users/:id", "owner"),
  rule("DELETE", "/api/users/:id", "owner"),
  rule("GET", "/api/users/:id/tokens", "owner"),
  rule("DELETE", "/api/users/:id/tokens/:tokenId", "owner"),

  ...documents("workflows"),
  rule("POST", "/api/workflows/validate", "editor"),
  rule("POST", "/api/workflows/import", "editor"),
  rule("GET", "/api/workflows/:id/export", "viewer"),
  rule("POST", "/api/workflows/:id/duplicate", "editor"),
  rule("GET", "/api/workflows/:id/callers", "viewer"),

  rule("POST", "/api/workflows/:id/runs", "editor"),
  rule("GET", "/api/runs", "viewer"),
  rule("GET", "/api/runs/:id", "viewer"),
  rule("GET", "/api/runs/:id/events", "viewer"),
  rule("GET", "/api/runs/:id/value", "viewer"),
  rule("GET", "/api/streams/:id/events", "viewer"),
  rule("POST", "/api/runs/:id/cancel", "editor"),
  rule("POST", "/api/runs/:id/rerun", "editor"),
  rule("POST", "/api/runs/:id/fork", "editor"),

  ...documents("agents"),
  rule("GET", "/api/agents/:id/conversations", "viewer"),
  // The effective permissions show the owner's rules, which editors may read (GET /api/settings/permissions).
  rule("GET", "/api/agents/:id/permissions", "editor"),
  rule("GET", "/api/agents/:id/changes", "viewer"),
  rule("POST", "/api/agents/:id/messages", "editor"),
  rule("GET", "/api/conversations/:id", "viewer"),
  rule("POST", "/api/conversations/:id/cancel", "editor"),
  rule("POST", "/api/conversations/:id/permissions/:requestId", "editor"),
  rule("POST", "/api/conversations/:id/fork", "editor"),

  ...documents("scenes"),
  rule("POST", "/api/scenes/:id/start", "editor"),
  rule("POST", "/api/scenes/:id/pause", "editor"),
  rule("POST", "/api/scenes/:id/resume", "editor"),
  rule("POST", "/api/scenes/:id/stop", "editor"),
  rule("POST", "/api/scenes/:id/replay", "editor"),
  rule("POST", "/api/scenes/:id/fork", "editor"),
  rule("POST", "/api/scenes/:id/messages", "editor"),
  rule("POST", "/api/scenes/:id/agents/:instanceId/answer", "editor"),
  rule("POST", "/api/scenes/:id/agents/:instanceId/permissions/:requestId", "editor"),
  rule("GET", "/api/scenes/:id/state", "viewer"),
  rule("GET", "/api/scenes/:id/timeline", "viewer"),

  // Editors read the settings their runs are held to and the names their nodes pick; owners change them.
  rule("GET", "/api/settings/permissions", "editor"),
  rule("PUT", "/api/settings/permissions", "owner"),
  rule("GET", "/api/settings/mcp", "editor"),
  rule("PUT", "/api/settings/mcp", "owner"),
  rule("GET", "/api/llm-profiles", "viewer"),
  rule("POST", "/api/llm-profiles", "owner"),
  rule("GET", "/api/llm-profiles/:id", "viewer"),
  rule("PUT", "/api/llm-profiles/:id", "owner"),
  rule("DELETE", "/api/llm-profiles/:id", "owner"),
  rule("POST", "/api/llm-profiles/:id/test", "owner"),
  // Everyone reads their own usage; owners everyone's (usage/usage-api.ts).
  rule("GET", "/api/usage", "viewer"),
  // Editors set workflows', agents' and scenes' own budgets; the owner's ceilings and users' budgets are checked as owner-only in usage/budget-api.ts.
  rule("GET", "/api/budgets", "viewer"),
  rule("PUT", "/api/budgets/:target/:id", "editor"),
  rule("DELETE", "/api/budgets/:target/:id", "editor"),
  rule("GET", "/api/credentials", "editor"),
  rule("POST", "/api/credentials", "owner"),
  rule("PUT", "/api/credentials/:name", "owner"),
  rule("DELETE", "/api/credentials/:name", "owner"),

  rule("GET", "/api/builder/settings", "editor"),
  rule("PUT", "/api/builder/settings", "owner"),
  rule("GET", "/api/builder/sessions", "viewer"),
  rule("POST", "/api/builder/sessions", "editor"),
  rule("GET", "/api/builder/sessions/:id", "viewer"),
  rule("POST", "/api/builder/sessions/:id/messages", "editor"),
  rule("PUT", "/api/builder/sessions/:id/scope", "editor"),
  rule("POST", "/api/builder/sessions/:id/cancel", "editor"),
  rule("POST", "/api/builder/sessions/:id/interrupt", "editor"),
  rule("POST", "/api/builder/sessions/:id/apply", "editor"),
  rule("GET", "/api/builder/sessions/:id/audit", "viewer"),
  rule("GET", "/api/builder/sessions/:id/change-sets", "viewer"),
  rule("GET", "/api/builder/sessions/:id/change-sets/:csId", "viewer"),
  rule("GET", "/api/builder/sessions/:id/change-sets/:csId/preview", "viewer"),
  rule("POST", "/api/builder/sessions/:id/change-sets/:csId/discard", "editor"),
  rule("POST", "/api/builder/sessions/:id/change-sets/:csId/validate", "editor"),

  // Triggers: viewers see them; editors switch workflows on (their runs act for them) and rotate hook secrets.
  rule("GET", "/api/triggers", "viewer"),
  rule("PUT", "/api/workflows/:id/active", "editor"),
  rule("POST", "/api/workflows/:id/triggers/:nodeId/secret", "editor"),
  // A schedule's next ticks (computed, nothing stored): what the inspector shows while one is typed.
  rule("POST", "/api/triggers/schedule-preview", "viewer"),
  // Webhooks: no session; each hook checks its own secret (triggers/hooks-api.ts), and the trust boundary lets them by.
  rule("POST", "/hooks/:workflowId/*", "public"),
  rule("GET", "/hooks/:workflowId/*", "public"),
  rule("PUT", "/hooks/:workflowId/*", "public"),

  // Approvals: anyone signed in lists (each sees those their role may decide); editors decide (a node may ask owners
  // only, checked per approval) and make signed links; a link's decision needs no session: the signed link is the proof.
  rule("GET", "/api/approvals", "viewer"),
  rule("GET", "/api/approvals/:id", "viewer"),
  rule("POST", "/api/approvals/:id/decision", "editor"),
  rule("POST", "/api/approvals/:id/link", "editor"),
  rule("POST", "/api/approval-links/view", "public"),
  rule("POST", "/api/approval-links/decision", "public"),
  // Eval suites: viewers read suites and results; editors write suites and run them (the case runs act for them).
  rule("GET", "/api/evals/suites", "viewer"),
  rule("POST", "/api/evals/suites", "editor"),
  rule("GET", "/api/evals/suites/:id", "viewer"),
  rule("PUT", "/api/evals/suites/:id", "editor"),
  rule("DELETE", "/api/evals/suites/:id", "editor"),
  rule("POST", "/api/evals/suites/:id/cases/from-run", "editor"),
  rule("POST", "/api/evals/suites/:id/cases/from-conversation", "editor"),
  rule("POST", "/api/evals/suites/:id/runs", "editor"),
  rule("GET", "/api/evals/suites/:id/runs", "viewer"),
  rule("GET", "/api/evals/runs/:id", "viewer"),
  // Scene suites: the same split; a run's scene runs act for the editor who started it.
  rule("GET", "/api/evals/scene-suites", "viewer"),
  rule("POST", "/api/evals/scene-suites", "editor"),
  rule("GET", "/api/evals/scene-suites/:id", "viewer"),
  rule("PUT", "/api/evals/scene-suites/:id", "editor"),
  rule("DELETE", "/api/evals/scene-suites/:id", "editor"),
  rule("POST", "/api/evals/scene-suites/:id/runs", "editor"),
  rule("GET", "/api/evals/scene-suites/:id/runs", "viewer"),
  rule("GET", "/api/evals/scene-runs/:id", "viewer"),

  // Live events: any signed-in principal may watch (each subscription is checked again, see ws-access.ts).
  rule("WS", "/ws", "viewer"),
  // Prometheus scrapes with a personal token (a viewer's is enough) or the access token.
  rule("GET", "/metrics", "viewer"),
  // The MCP endpoint: viewers read its resources and prompts; each method is checked again against the API route
  // that does the same (mcp-server/mcp-caller.ts), so its tools start runs for editors only.
  rule("ALL", "/mcp", "viewer"),
  // The OpenAI-compatible endpoint runs agents, as POST /api/agents/:id/messages does: an editor's (its models are the agents it may run).
  rule("GET", "/v1/models", "editor"),
  rule("GET", "/v1/models/:id", "editor"),
  rule("POST", "/v1/chat/completions", "editor"),
  // A2A runs agents too (a2a/): an editor's personal token, for the cards as for the JSON-RPC endpoint.
  rule("GET", "/.well-known/agent-card.json", "editor"),
  rule("GET", "/a2a/:agentId/.well-known/agent-card.json", "editor"),
  rule("POST", "/a2a/:agentId", "editor"),
  // The editor's files hold no data; a signed-out editor shows its sign-in page.
  rule("GET", "/", "public"),
  rule("GET", "/*", "public"),
];

interface CompiledRule extends RouteRule {
  pattern: RegExp;
}

const RANK: Record<Access, number> = { public: -1, viewer: 0, editor: 1, owner: 2 };

function compile(path: string): RegExp {
  if (path === "/*") return /^\/(?!api(\/|$)|v1(\/|$)|ws$|mcp$|metrics$|hooks\/).*$/;
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // A trailing `/*` (the hooks') is one or more segments.
  if (source.endsWith("/\\*")) return new RegExp(`^${source.slice(0, -3)}/.+$`);
  return new RegExp(`^${source}/?$`);
}

/** The rule table, compiled: which access a request needs. */
export class RouteRules {
  private readonly rules: CompiledRule[];

  constructor(rules: readonly RouteRule[] = ROUTE_RULES) {
    this.rules = rules.map((r) => ({ ...r, pattern: compile(r.path) }));
  }

  /** The rule an Elysia route (method and pattern as registered) is listed under, if any. */
  ruleFor(method: string, path: string): RouteRule | undefined {
    return this.rules.find((r) => r.method === method && r.path === path);
  }

  /**
   * What a request needs. Where several rules match (`/api/workflows/validate` and `/api/workflows/:id`
   * differ in method, but a future pair may not), the strictest wins; none matching means owner.
   */
  accessFor(method: string, path: string, upgrade: boolean): Access {
    const asRouted = method === "HEAD" ? "GET" : method;
    let found: Access | undefined;
    for (const r of this.rules) {
      const methodMatches = r.method === "ALL" || (r.method === "WS" ? upgrade || asRouted === "GET" : r.method === asRouted);
      if (!methodMatches || !r.pattern.test(path)) continue;
      if (found === undefined || RANK[r.access] > RANK[found]) found = r.access;
    }
    return found ?? "owner";
  }
}
