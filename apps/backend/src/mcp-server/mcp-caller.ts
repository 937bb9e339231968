import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError, type ServerNotification, type ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Principal } from "../accounts/principal.ts";
import { RoleSchema, roleAtLeast } from "../accounts/roles.ts";
import { RouteRules } from "../auth/route-rules.ts";

export type McpExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Who an MCP request acts for: the trust boundary's principal of this very HTTP request (a role change applies at once). */
export interface McpCaller {
  userId: string;
  role: Principal["role"];
}

const CallerSchema = z.object({ userId: z.string().min(1), role: RoleSchema });

/** The principal as the transport hands it to each handler (`authInfo.extra`). */
export function authInfoOf(principal: Principal): { token: string; clientId: string; scopes: string[]; extra: Record<string, unknown> } {
  return { token: "", clientId: principal.userId, scopes: [], extra: { userId: principal.userId, role: principal.role } };
}

export function callerOf(extra: McpExtra): McpCaller {
  const parsed = CallerSchema.safeParse(extra.authInfo?.extra);
  // The route always passes the principal; a handler reached without one refuses rather than acting for nobody.
  if (!parsed.success) throw new McpError(ErrorCode.InvalidRequest, "This MCP request carries no Weft user; send it with a token.");
  return parsed.data;
}

const RULES = new RouteRules();

/**
 * What the caller may do through MCP is what their role may do through the API: each MCP method is
 * checked against the API route that does the same (`auth/route-rules.ts`), so the two cannot drift.
 */
export function mayCall(caller: McpCaller, method: "GET" | "POST", apiPath: string): boolean {
  const access = RULES.accessFor(method, apiPath, false);
  return access === "public" || roleAtLeast(caller.role, access);
}

/** Refuses (as the SDK's error, said once to the client) what the caller's role may not do. */
export function requireAccess(caller: McpCaller, method: "GET" | "POST", apiPath: string, what: string): void {
  if (!mayCall(caller, method, apiPath)) {
    throw new McpError(ErrorCode.InvalidRequest, `FORBIDDEN: your role (${caller.role}) may not ${what}; ask an owner for the editor role.`);
  }
}
