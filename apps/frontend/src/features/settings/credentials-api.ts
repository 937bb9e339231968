import { z } from "zod";
import { CredentialSummarySchema, type CredentialInput } from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";

const ListSchema = z.object({ credentials: z.array(CredentialSummarySchema) });
const OneSchema = z.object({ credential: CredentialSummarySchema });
const DeletedSchema = z.object({ ok: z.literal(true) });

/** Named credentials for http:request (Settings → Credentials): the API never returns a secret. */
export class CredentialsApi extends ApiClient {
  list() {
    return this.request("GET", "/api/credentials", ListSchema);
  }

  create(input: CredentialInput) {
    return this.request("POST", "/api/credentials", OneSchema, input);
  }

  /** Without `secret`, the stored one is kept. */
  update(input: CredentialInput) {
    return this.request("PUT", `/api/credentials/${encodeURIComponent(input.name)}`, OneSchema, input);
  }

  remove(name: string) {
    return this.request("DELETE", `/api/credentials/${encodeURIComponent(name)}`, DeletedSchema);
  }
}
