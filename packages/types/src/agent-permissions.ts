import { z } from "zod";
import { PermissionActionSchema, PermissionRuleSchema } from "./toolhost.ts";

/**
 * One line of an agent's effective permissions (GET /api/agents/:id/permissions): for a tool, as a
 * whole (no `target`) or at the target a rule names, what the owner's settings allow (the ceiling),
 * what the agent's own rules say, and the result — the more restrictive of the two.
 */
export const EffectivePermissionSchema = z.object({
  tool: z.string(),
  /** A rule's target pattern (path, command or URL wildcard); absent: the tool as a whole. */
  target: z.string().optional(),
  action: PermissionActionSchema,
  /** Where `action` comes from: an owner's settings rule, the owner's default, or one of the agent's own rules. */
  from: z.enum(["owner-rule", "owner-default", "agent-rule"]),
  /** The rule's index in its list (the settings' rules, or the profile's `permissions`). */
  index: z.number().int().min(0).optional(),
  /** The owner's decision alone (the ceiling). */
  owner: PermissionActionSchema,
  /** The agent's own rule for it, when one matches. */
  agent: PermissionActionSchema.optional(),
  /** http.request only: the owner opened private and loopback addresses at this target. */
  privateNetwork: z.boolean().optional(),
});
export type EffectivePermission = z.infer<typeof EffectivePermissionSchema>;

export const EffectivePermissionsSchema = z.object({
  agentId: z.string(),
  /** The owner's default action, for tools and targets no rule names. */
  defaultAction: PermissionActionSchema,
  entries: z.array(EffectivePermissionSchema),
});
export type EffectivePermissions = z.infer<typeof EffectivePermissionsSchema>;

/** Who changed an agent profile, when, and what its tools, skills and rules became (GET /api/agents/:id/changes). */
export const AgentChangeSchema = z.object({
  agentId: z.string(),
  kind: z.enum(["created", "updated", "deleted"]),
  /** The revision the change saved; null for a deletion. */
  revision: z.number().int().min(0).nullable(),
  at: z.number(),
  /** The user's id; null when nobody signed in made it (the example content loaded at first start). */
  by: z.string().nullable(),
  byName: z.string().nullable(),
  role: z.string().nullable(),
  /** The profile's top-level fields the change touched (`tools`, `permissions`, …); all of them for a creation. */
  fields: z.array(z.string()),
  tools: z.array(z.string()),
  skills: z.array(z.string()),
  permissions: z.array(PermissionRuleSchema),
});
export type AgentChange = z.infer<typeof AgentChangeSchema>;
