import { z } from "zod";
import { ruleProblems } from "@weft/agent-runtime";
import { PermissionPolicySchema, type Logger, type PermissionPolicy, type PermissionRule } from "@weft/types";
import { ApiError } from "../api/errors.ts";
import type { SettingsRepository } from "./settings-repository.ts";

const KEY = "permissions";

/**
 * On a new installation every tool call is allowed, as before there was a setting: an `ask` rule
 * stops plain workflow runs (nobody can be asked there), so asking is the user's choice, per tool.
 */
const DEFAULT_POLICY: PermissionPolicy = { defaultAction: "allow", rules: [] };

/** A stored policy that no longer parses is replaced by this until the user saves a new one: refuse rather than guess. */
const FALLBACK_POLICY: PermissionPolicy = { defaultAction: "deny", rules: [] };

export const PermissionSettingsViewSchema = z.object({
  policy: PermissionPolicySchema,
  /** When the user last saved the policy; null while it is the installation's default. */
  updatedAt: z.number().nullable().describe("when the policy was last saved; null while it is the installation's default"),
});
export type PermissionSettingsView = z.output<typeof PermissionSettingsViewSchema>;

/** Problems of rules that parse but cannot work, as API issues under `path` (e.g. `["rules"]`, `["permissions"]`). */
export function ruleIssues(rules: readonly PermissionRule[], path: (string | number)[]): { path: (string | number)[]; message: string; code: string }[] {
  return ruleProblems(rules).map((p) => ({ path: [...path, p.index, p.field], message: p.message, code: "custom" }));
}

/**
 * The tool permission rules of the installation (Settings → Permissions): stored in SQLite, loaded at
 * start, and handed to the listeners (the tool host) each time they are saved, so they apply at once.
 */
export class PermissionSettings {
  private readonly listeners: ((policy: PermissionPolicy) => void)[] = [];
  private readonly savedListeners: (() => Promise<void>)[] = [];

  private constructor(
    private readonly repo: SettingsRepository,
    private view: PermissionSettingsView,
  ) {}

  static async load(repo: SettingsRepository, log: Logger): Promise<PermissionSettings> {
    return new PermissionSettings(repo, await PermissionSettings.read(repo, log));
  }

  private static async read(repo: SettingsRepository, log: Logger): Promise<PermissionSettingsView> {
    const stored = await repo.get(KEY);
    if (!stored) return { policy: DEFAULT_POLICY, updatedAt: null };
    const parsed = PermissionPolicySchema.safeParse(stored.value);
    if (parsed.success) return { policy: parsed.data, updatedAt: stored.updatedAt };
    const problem = parsed.error.issues.map((i) => `${i.path.join(".") || "(policy)"}: ${i.message}`).join("; ");
    log.error("the stored permission settings are invalid: every tool call is denied until they are saved again (Settings → Permissions)", { problem });
    return { policy: FALLBACK_POLICY, updatedAt: stored.updatedAt };
  }

  /** Reads the policy another process saved and applies it here (queue mode: API processes and workers share the database). */
  async reload(log: Logger): Promise<void> {
    this.view = await PermissionSettings.read(this.repo, log);
    for (const listener of this.listeners) listener(this.view.policy);
  }

  /** Calls `listener` after each policy saved in this process (not after a `reload`); the save answers once it is done. */
  onSaved(listener: () => Promise<void>): void {
    this.savedListeners.push(listener);
  }

  get current(): PermissionSettingsView {
    return this.view;
  }

  /** Calls `listener` with every policy saved from now on. */
  onChange(listener: (policy: PermissionPolicy) => void): void {
    this.listeners.push(listener);
  }

  /** Checks, stores and applies a new policy; a refused one changes nothing. */
  async replace(policy: PermissionPolicy): Promise<PermissionSettingsView> {
    const issues = ruleIssues(policy.rules, ["rules"]);
    const first = issues[0];
    if (first) {
      const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""}, see details.issues)` : "";
      throw new ApiError("VALIDATION_FAILED", `body.${first.path.join(".")}: ${first.message}${more}`, { issues });
    }
    const updatedAt = await this.repo.set(KEY, policy);
    this.view = { policy, updatedAt };
    for (const listener of this.listeners) listener(policy);
    await Promise.all(this.savedListeners.map((listener) => listener()));
    return this.view;
  }
}
