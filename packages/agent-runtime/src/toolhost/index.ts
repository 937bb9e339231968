export { ToolHost, withCallContext, type ToolHostOptions } from "./tool-host.ts";
export type { MountRoots } from "./fs/mounts.ts";
export { AuditLog, AuditRecordSchema, type AuditLogOptions, type AuditRecord } from "./audit/audit-log.ts";
export { effectivePermissions } from "./permissions/effective.ts";
export {
  decidePermission,
  namesAgent,
  ownerDecision,
  ruleMatches,
  toolNameForms,
  toolsMatching,
  visibleTools,
  type PermissionDecision,
  type PermissionQuery,
  type RuleLayers,
} from "./permissions/rules.ts";
export { ruleProblems, type RuleProblem } from "./permissions/rule-check.ts";
export { DEFAULT_COMMAND_RULES } from "./shell/allowlist.ts";
export { DEFAULT_ENV_ALLOWLIST } from "./shell/environment.ts";
export { shellSandboxFromEnv } from "./shell/sandbox-setting.ts";
export type { ToolDefinition, ToolSource } from "./tool.ts";
