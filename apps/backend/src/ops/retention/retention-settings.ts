import { z } from "zod";
import type { SettingsRepository } from "../../settings/settings-repository.ts";

const KEY = "retention";
const days = z.number().positive().max(36_500);

/**
 * How long run records, scene logs and old document versions are kept; an absent limit keeps everything. The
 * documents themselves (workflows, agents, scenes as they are now) and conversations are never touched.
 */
export const RetentionPolicySchema = z
  .object({
    /** Finished runs older than this many days go (with their observations and events). */
    runsMaxAgeDays: days.optional(),
    /** Of each workflow's runs, newest first, the finished ones after the first N go. */
    runsPerWorkflow: z.number().int().min(0).max(1_000_000).optional(),
    /** Scene session logs of scenes stopped (or idle) for this many days go; so do the scenes' stream events older than that. */
    sceneLogMaxAgeDays: days.optional(),
    /** Of each workflow's, agent profile's and scene's versions, the newest N stay (and every version a run ran); older ones go. */
    versionsPerDocument: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();
export type RetentionPolicy = z.infer<typeof RetentionPolicySchema>;

/** A stored retention setting that no longer fits its schema: compaction refuses rather than guess. */
export class RetentionSettingsError extends Error {
  readonly code = "INVALID_RETENTION_SETTINGS";
}

/** The stored policy (`weft compact --save`), or an empty one (keep everything). */
export async function loadRetentionPolicy(settings: SettingsRepository): Promise<RetentionPolicy> {
  const stored = await settings.get(KEY);
  if (!stored) return {};
  const parsed = RetentionPolicySchema.safeParse(stored.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RetentionSettingsError(`The stored retention settings do not fit their format (${issue?.path.join(".") || "(root)"}: ${issue?.message}); save new ones with weft compact --save.`);
  }
  return parsed.data;
}

export async function saveRetentionPolicy(settings: SettingsRepository, policy: RetentionPolicy): Promise<void> {
  await settings.set(KEY, RetentionPolicySchema.parse(policy));
}

/** True when the policy removes nothing (compaction then only reclaims space). */
export function keepsEverything(policy: RetentionPolicy): boolean {
  return policy.runsMaxAgeDays === undefined && policy.runsPerWorkflow === undefined && policy.sceneLogMaxAgeDays === undefined && policy.versionsPerDocument === undefined;
}
