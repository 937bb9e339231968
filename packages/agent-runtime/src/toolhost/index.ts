export { ToolHost, BUILTIN_TOOLS, withCallContext, type ToolHostOptions } from "./tool-host.ts";
export { AuditLog, AuditRecordSchema, type AuditLogOptions, type AuditRecord } from "./audit/audit-log.ts";
export { redactText, summariseArgs } from "./audit/redact.ts";
export { decidePermission, visibleTools, ruleMatches, toolNameForms, type PermissionDecision, type PermissionQuery } from "./permissions/rules.ts";
export { DEFAULT_COMMAND_RULES } from "./shell/allowlist.ts";
export { DEFAULT_ENV_ALLOWLIST } from "./shell/environment.ts";
export { PathQueue } from "./fs/path-queue.ts";
export type { MountRoots } from "./fs/mounts.ts";
