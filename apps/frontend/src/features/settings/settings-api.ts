import { z } from "zod";
import { PermissionPolicySchema, type PermissionPolicyInput } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

export const PermissionSettingsSchema = z.object({ policy: PermissionPolicySchema, updatedAt: z.number().nullable() });
export type PermissionSettings = z.infer<typeof PermissionSettingsSchema>;

/** Settings of the installation (docs/api.md "Settings: tool permissions"). */
export class SettingsApi extends ApiClient {
  getPermissions() {
    return this.request("GET", "/api/settings/permissions", PermissionSettingsSchema);
  }

  /** Replaces the whole policy; the server refuses bad rules naming the rule and field (`details.issues`). */
  savePermissions(policy: PermissionPolicyInput) {
    return this.request("PUT", "/api/settings/permissions", PermissionSettingsSchema, policy);
  }
}
