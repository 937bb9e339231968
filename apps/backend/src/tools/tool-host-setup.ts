import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { AuditLog, ToolHost, shellSandboxFromEnv } from "@weft/agent-runtime";
import type { CredentialResolver, Logger, PermissionGate, PermissionPolicy } from "@weft/types";
import { messageOf } from "@weft/types";
import { PRIVATE_FOLDER_MODE } from "../storage/private-data-dir.ts";

export interface ToolHostFolders {
  /** `@project/`: the user's files (read-write). */
  project: string;
  /** `@pkg/`: installed workflows and assets (read-only). */
  pkg: string;
  /** Holds `@state/` (one private folder per run) and the audit log. */
  dataDir: string;
}

/**
 * The sandboxed file and shell tools the server hands to every run (`ctx.services.toolHost`).
 * `permissions` are the rules saved in the settings (the caller applies later changes with
 * `setPolicy`); questions of `ask` rules go to `gate` (the agents' permission broker); `env` gives
 * WEFT_SHELL_SANDBOX; `credentials` are the named secrets http.request may use.
 * Missing folders are created; when the tool host cannot start (e.g. mount folders inside one
 * another) the server still runs, and tool nodes fail with MISSING_SERVICE, after one clear log line.
 */
export function createToolHost(
  folders: ToolHostFolders,
  permissions: PermissionPolicy,
  gate: PermissionGate,
  log: Logger,
  env: Record<string, string | undefined> = process.env,
  credentials?: CredentialResolver,
): ToolHost | undefined {
  const state = join(folders.dataDir, "state");
  for (const dir of [folders.project, folders.pkg]) mkdirSync(dir, { recursive: true });
  // In the data folder: Weft's user's alone, as the folder is.
  mkdirSync(state, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  try {
    return new ToolHost({
      mounts: { project: folders.project, pkg: folders.pkg, state },
      permissions,
      gate,
      audit: new AuditLog({ file: join(folders.dataDir, "audit", "tools.jsonl"), logger: log.child("audit") }),
      logger: log,
      shellSandbox: shellSandboxFromEnv(env, log),
      ...(credentials ? { credentials } : {}),
    });
  } catch (error) {
    log.error("file and shell tools are unavailable", { error: messageOf(error) });
    return undefined;
  }
}
