import { KIT_ROUTES, type ApiRoute } from "./api/openapi-routes.ts";
import { OPS_ROUTES } from "./ops/ops-api.ts";
import { AUTH_ROUTES } from "./auth/auth-api.ts";
import { USERS_ROUTES } from "./accounts/users-api.ts";
import { WORKFLOWS_ROUTES } from "./workflows/workflows-api.ts";
import { RUNS_ROUTES } from "./runs/runs-api.ts";
import { AGENTS_ROUTES } from "./agents/agents-api.ts";
import { CONVERSATIONS_ROUTES } from "./agents/conversations-api.ts";
import { SCENE_DOCUMENTS_ROUTES } from "./scenes/scene-documents-api.ts";
import { SCENE_RUNTIME_ROUTES } from "./scenes/scene-api.ts";
import { PERMISSIONS_ROUTES } from "./settings/permissions-api.ts";
import { MCP_SETTINGS_ROUTES } from "./settings/mcp-settings-api.ts";
import { LLM_PROFILES_ROUTES } from "./llm/llm-profiles-api.ts";
import { CREDENTIALS_ROUTES } from "./credentials/credentials-api.ts";
import { BUILDER_ROUTES } from "./builder/api/builder-api.ts";
import { USAGE_ROUTES } from "./usage/usage-api.ts";
import { BUDGET_ROUTES } from "./usage/budget-api.ts";
import { OPENAI_ROUTES } from "./openai-compat/openai-api.ts";
import { TRIGGERS_ROUTES } from "./triggers/triggers-api.ts";
import { APPROVALS_ROUTES } from "./approvals/approvals-api.ts";
import { EVALS_ROUTES } from "./evals/evals-api.ts";
import { SCENE_SUITES_ROUTES } from "./evals/scene-suites-api.ts";
import { A2A_ROUTES } from "./a2a/index.ts";

/**
 * Every route under /api/ (and /v1/) as the OpenAPI document describes it, each domain's list from beside its handlers;
 * the OpenAPI test fails when the server registers one that is missing here.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  ...OPS_ROUTES,
  ...KIT_ROUTES,
  ...AUTH_ROUTES,
  ...USERS_ROUTES,
  ...WORKFLOWS_ROUTES,
  ...RUNS_ROUTES,
  ...AGENTS_ROUTES,
  ...CONVERSATIONS_ROUTES,
  ...SCENE_DOCUMENTS_ROUTES,
  ...SCENE_RUNTIME_ROUTES,
  ...PERMISSIONS_ROUTES,
  ...MCP_SETTINGS_ROUTES,
  ...LLM_PROFILES_ROUTES,
  ...CREDENTIALS_ROUTES,
  ...BUILDER_ROUTES,
  ...USAGE_ROUTES,
  ...BUDGET_ROUTES,
  ...OPENAI_ROUTES,
  ...TRIGGERS_ROUTES,
  ...APPROVALS_ROUTES,
  ...EVALS_ROUTES,
  ...SCENE_SUITES_ROUTES,
  ...A2A_ROUTES,
];
