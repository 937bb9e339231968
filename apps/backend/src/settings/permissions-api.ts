import { Elysia } from "elysia";
import { PermissionPolicySchema } from "@weft/types";
import { answer } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { PermissionSettingsViewSchema, type PermissionSettings } from "./permission-settings.ts";

/** Settings of the installation the user changes in the editor: the tool permissions. */
export function permissionsApi(permissions: PermissionSettings, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/settings/permissions", () => answer(PermissionSettingsViewSchema, permissions.current))
    .put("/api/settings/permissions", async ({ request }) => {
      const policy = await readBody(request, PermissionPolicySchema, maxBodyBytes);
      return answer(PermissionSettingsViewSchema, await permissions.replace(policy));
    });
}

/** The permission policy's routes, as the OpenAPI document describes them. */
export const PERMISSIONS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/settings/permissions", "settings", "The permission policy", { response: PermissionSettingsViewSchema }),
  route("PUT", "/api/settings/permissions", "settings", "Replace the permission policy", { body: PermissionPolicySchema, response: PermissionSettingsViewSchema }),
];
