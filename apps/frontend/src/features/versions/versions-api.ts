import { z } from "zod";
import { VersionContentSchema, VersionPageSchema } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

/** The document kinds with a version history, as their API paths name them. */
export type VersionedKind = "workflows" | "agents" | "scenes";

const enc = encodeURIComponent;
/** A restore answers as the kind's update does: the stored document under its key. */
const RestoredSchema = z.record(z.string(), z.unknown());

/** Version history (docs/api.md "Versions"): list, one version's content, restore. */
export class VersionsApi extends ApiClient {
  list(kind: VersionedKind, id: string, before?: number) {
    return this.request("GET", `/api/${kind}/${enc(id)}/versions?limit=50${before ? `&before=${before}` : ""}`, VersionPageSchema);
  }

  get(kind: VersionedKind, id: string, number: number) {
    return this.request("GET", `/api/${kind}/${enc(id)}/versions/${number}`, VersionContentSchema);
  }

  restore(kind: VersionedKind, id: string, number: number, baseRevision: number) {
    return this.request("POST", `/api/${kind}/${enc(id)}/versions/${number}/restore`, RestoredSchema, { baseRevision });
  }
}
