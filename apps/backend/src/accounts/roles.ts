import { z } from "zod";

/** The roles, weakest first: each may do everything the ones before it may. */
export const ROLES = ["viewer", "editor", "owner"] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

/** What each role may do, in the words the refusals and docs use. */
export const ROLE_DUTIES: Record<Role, string> = {
  viewer: "read workflows, agents and scenes, and read and watch runs",
  editor: "also change workflows, agents and scenes, and start, cancel and answer runs",
  owner: "also manage users, settings, permissions, LLM profiles, credentials and MCP servers",
};
