import type { Role } from "../accounts/roles.ts";

/**
 * What a request does, in a user's words ("change LLM profiles"), for the role refusal: people read it in
 * the editor's toasts, where a route ("PUT /api/llm-profiles/demo") says nothing. The first matching line wins.
 */
const ACTIONS: readonly [method: string, pattern: RegExp, words: string][] = [
  ["POST", /^\/api\/workflows\/[^/]+\/runs$/, "run workflows"],
  ["POST", /^\/api\/workflows\/import$/, "import workflows"],
  ["POST", /^\/api\/workflows\/validate$/, "check workflows on the server"],
  ["POST", /^\/api\/workflows\/[^/]+\/duplicate$/, "duplicate workflows"],
  ["POST", /^\/api\/(workflows|agents|scenes)\/[^/]+\/versions\/[^/]+\/restore$/, "restore old versions"],
  ["POST", /^\/api\/runs\/[^/]+\/cancel$/, "cancel runs"],
  ["POST", /^\/api\/runs\/[^/]+\/rerun$/, "run workflows again"],
  ["POST", /^\/api\/runs\/[^/]+\/fork$/, "fork runs"],
  ["PUT", /^\/api\/workflows\/[^/]+\/active$/, "switch workflows' triggers on or off"],
  ["POST", /^\/api\/workflows\/[^/]+\/triggers\/[^/]+\/secret$/, "rotate webhook secrets"],
  ["POST", /^\/api\/approvals\/[^/]+\/decision$/, "decide approvals"],
  ["POST", /^\/api\/approvals\/[^/]+\/link$/, "make approval links"],
  ["POST", /^\/api\/evals\/suites\/[^/]+\/runs$/, "run eval suites"],
  ["POST", /^\/api\/evals\/suites\/[^/]+\/cases\/from-run$/, "save runs as test cases"],
  ["POST", /^\/api\/evals\/scene-suites\/[^/]+\/runs$/, "run scene suites"],
  ["GET", /^\/api\/agents\/[^/]+\/permissions$/, "see an agent's effective permissions"],
  ["POST", /^\/api\/agents\/[^/]+\/messages$/, "chat with agents"],
  ["POST", /^\/api\/conversations\/[^/]+\/cancel$/, "stop agents' replies"],
  ["POST", /^\/api\/conversations\/[^/]+\/fork$/, "fork agent conversations"],
  ["POST", /\/permissions\/[^/]+$/, "answer permission requests"],
  ["POST", /^\/api\/scenes\/[^/]+\/(start|pause|resume|stop)$/, "start, pause or stop scenes"],
  ["POST", /^\/api\/scenes\/[^/]+\/replay$/, "replay scenes"],
  ["POST", /^\/api\/scenes\/[^/]+\/fork$/, "fork scenes"],
  ["POST", /^\/api\/scenes\/[^/]+\/messages$/, "send messages to scenes"],
  ["POST", /^\/api\/scenes\/[^/]+\/agents\/[^/]+\/answer$/, "answer agents' questions"],
  ["POST", /^\/api\/llm-profiles\/[^/]+\/test$/, "test LLM profiles"],
  ["ANY", /^\/api\/settings\/permissions$/, "PERMISSION"],
  ["ANY", /^\/api\/settings\/mcp$/, "MCP"],
  ["ANY", /^\/api\/builder\/settings$/, "BUILDER_SETTINGS"],
  ["POST", /^\/api\/builder\/sessions\/[^/]+\/apply$/, "apply the Builder AI's changes"],
  ["POST", /^\/api\/builder\/sessions/, "work with the Builder AI"],
  ["PUT", /^\/api\/builder\/sessions/, "work with the Builder AI"],
  ["ANY", /^\/api\/users/, "manage users"],
  ["ANY", /^\/mcp$/, "use Weft's MCP tools"],
  ["ANY", /^\/v1\//, "chat with agents through the OpenAI-compatible endpoint"],
  ["ANY", /^\/metrics$/, "read the metrics"],
  ["ANY", /^\/(a2a\/|\.well-known\/agent-card\.json$)/, "talk to agents over A2A"],
];

/** The things a plain read, create, change or delete acts on, by the path's first segment after /api/. */
const NOUNS: Record<string, string> = {
  workflows: "workflows",
  agents: "agent profiles",
  scenes: "scenes",
  runs: "runs",
  conversations: "agent conversations",
  "llm-profiles": "LLM profiles",
  credentials: "credentials",
  builder: "Builder AI sessions",
  nodes: "the node catalogue",
  budgets: "budgets",
  usage: "LLM usage",
  triggers: "triggers",
  approvals: "approvals",
  evals: "eval suites",
};

const SETTINGS: Record<string, string> = { PERMISSION: "the permission settings", MCP: "the MCP servers", BUILDER_SETTINGS: "the Builder AI settings" };

function verb(method: string): string {
  switch (method) {
    case "GET":
    case "HEAD":
      return "see";
    case "POST":
      return "create";
    case "PUT":
    case "PATCH":
      return "change";
    case "DELETE":
      return "delete";
    default:
      return "use";
  }
}

/** "change LLM profiles", "run workflows", "see the permission settings": what the request would have done. */
export function actionWords(method: string, path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  for (const [m, pattern, words] of ACTIONS) {
    if ((m === "ANY" || m === method) && pattern.test(trimmed)) {
      const setting = SETTINGS[words];
      return setting ? `${verb(method)} ${setting}` : words;
    }
  }
  const noun = NOUNS[trimmed.split("/")[2] ?? ""];
  return noun ? `${verb(method)} ${noun}` : `${verb(method)} this`;
}

/** Who may: "Only an owner can", "Only editors and owners can". */
export function whoMay(required: Role): string {
  switch (required) {
    case "owner":
      return "Only an owner can";
    case "editor":
      return "Only editors and owners can";
    case "viewer":
      return "Only signed-in users can";
  }
}
