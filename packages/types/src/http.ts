import { z } from "zod";

/**
 * Outbound HTTP (the `http.request` tool and node) and the named credentials it may use. The tool
 * is implemented in agent-runtime/toolhost on the SSRF-safe client of agent-runtime/net.
 */

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export const HTTP_BODY_TYPES = ["json", "text", "form"] as const;
export const HTTP_RESPONSE_TYPES = ["auto", "json", "text"] as const;

export const HttpRequestOkSchema = z.object({
  ok: z.literal(true),
  status: z.number().int(),
  statusText: z.string(),
  /** The URL that answered, after redirects. */
  url: z.string(),
  /** The URLs redirected to, in order. */
  redirects: z.array(z.string()),
  headers: z.record(z.string(), z.string()),
  /** Parsed JSON, or text (also when a JSON body was cut at the size cap). */
  body: z.unknown(),
  bodyType: z.enum(["json", "text"]),
  bytes: z.number().int(),
  /** The body passed the size cap and was cut there. */
  truncated: z.boolean(),
  attempts: z.number().int(),
  durationMs: z.number(),
});
export type HttpRequestOk = z.infer<typeof HttpRequestOkSchema>;

/** Progress of a download, reported while the body streams in. */
export interface HttpProgress {
  receivedBytes: number;
  /** From Content-Length, when the server sent one. */
  totalBytes?: number;
}

// ---- credentials ----

export const CREDENTIAL_KINDS = ["bearer", "header", "basic"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const CredentialNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a credential name is 1–64 letters, digits, _, . or -, e.g. github-token");

/**
 * A credential as its secret is applied to a request: `bearer` → `Authorization: Bearer <secret>`;
 * `header` → `<header>: <secret>`; `basic` → `Authorization: Basic base64(<username>:<secret>)`.
 * Secrets go in headers only, never in the URL, which permission rules and the audit log see.
 */
export const ResolvedCredentialSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("bearer"), secret: z.string().min(1) }),
  z.object({ kind: z.literal("header"), header: z.string().regex(/^[A-Za-z0-9-]+$/, "an HTTP header name such as X-Api-Key"), secret: z.string().min(1) }),
  z.object({ kind: z.literal("basic"), username: z.string().min(1), secret: z.string() }),
]);
export type ResolvedCredential = z.infer<typeof ResolvedCredentialSchema>;

/** A stored credential as the API shows it: everything but the secret. */
export const CredentialSummarySchema = z.object({
  name: CredentialNameSchema,
  kind: z.enum(CREDENTIAL_KINDS),
  header: z.string().optional(),
  username: z.string().optional(),
  description: z.string().default(""),
  hasSecret: z.boolean(),
  updatedAt: z.string(),
});
export type CredentialSummary = z.infer<typeof CredentialSummarySchema>;

/** What the API accepts to create or replace a credential (the secret may be left out on update to keep it). */
export const CredentialInputSchema = z
  .object({
    name: CredentialNameSchema,
    kind: z.enum(CREDENTIAL_KINDS),
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, "an HTTP header name such as X-Api-Key")
      .optional(),
    username: z.string().min(1).optional(),
    description: z.string().max(500).optional(),
    secret: z.string().min(1).max(16_384).optional(),
  })
  .strict();
export type CredentialInput = z.infer<typeof CredentialInputSchema>;

/** Where the tool host finds a named credential's secret (the backend's encrypted store). */
export interface CredentialResolver {
  resolve(name: string): Promise<ResolvedCredential | undefined>;
  /** The names there are, for "did you mean" hints. */
  names(): Promise<string[]>;
}
