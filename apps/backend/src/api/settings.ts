import { Elysia } from "elysia";
import { PermissionPolicySchema } from "@weft/types";
import type { ApiDeps } from "./deps.ts";
import { jsonResponse } from "./errors.ts";
import { readBody } from "./body.ts";

/** Settings of the installation the user changes in the editor: the tool permissions. */
export function settingsApi(deps: ApiDeps) {
  const { permissions, maxBodyBytes } = deps;
  return new Elysia()
    .get("/api/settings/permissions", () => jsonResponse(permissions.current))
    .put("/api/settings/permissions", async ({ request }) => {
      const policy = await readBody(request, PermissionPolicySchema, maxBodyBytes);
      return jsonResponse(await permissions.replace(policy));
    });
}
