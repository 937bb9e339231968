import { z } from "zod";
import { formatHostPattern, parseHostPattern } from "./credential-binding.ts";

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

/** The roles whose runs may use a credential (the users' roles: owner, editor, viewer). */
export const CREDENTIAL_ROLES = ["owner", "editor", "viewer"] as const;
export type CredentialRole = (typeof CREDENTIAL_ROLES)[number];
export const MAX_CREDENTIAL_HOSTS = 50;

/** One URL pattern a credential may be sent to (see credential-binding.ts), stored normalised. */
export const CredentialHostSchema = z
  .string()
  .max(2048)
  .transform((text, ctx) => {
    const parsed = parseHostPattern(text);
    if (typeof parsed !== "string") return formatHostPattern(parsed);
    ctx.addIssue({ code: "custom", message: parsed });
    return z.NEVER;
  });

/**
 * A stored credential as the API shows it: everything but the secret. `hosts` empty: stored before
 * credentials were bound, refused until an owner binds it.
 */
export const CredentialSummarySchema = z.object({
  name: CredentialNameSchema,
  kind: z.enum(CREDENTIAL_KINDS),
  header: z.string().optional(),
  username: z.string().optional(),
  description: z.string().default(""),
  /** The URL patterns it may be sent to. */
  hosts: z.array(z.string()),
  /** The roles whose runs may use it. */
  roles: z.array(z.enum(CREDENTIAL_ROLES)),
  hasSecret: z.boolean(),
  updatedAt: z.string(),
});
export type CredentialSummary = z.infer<typeof CredentialSummarySchema>;

/**
 * What the API accepts to create or replace a credential. A new one needs `secret` and `hosts`;
 * `roles` defaults to owners only. On update, a field left out keeps its stored value.
 */
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
    hosts: z
      .array(CredentialHostSchema)
      .min(1, "name at least one URL the credential may be sent to, e.g. https://api.example.com")
      .max(MAX_CREDENTIAL_HOSTS, `at most ${MAX_CREDENTIAL_HOSTS} URL patterns`)
      .optional(),
    roles: z.array(z.enum(CREDENTIAL_ROLES)).min(1, 'name the roles whose runs may use it, e.g. ["owner"] or ["owner", "editor"]').optional(),
  })
  .strict();
export type CredentialInput = z.input<typeof CredentialInputSchema>;
export type CredentialInputParsed = z.output<typeof CredentialInputSchema>;

/** On whose behalf a credential is asked for: the user who started the run, the agent's conversation or the scene. */
export interface CredentialUse {
  userId?: string;
}

/** Why a stored credential may not be used here (http.request turns it into its tool error). */
export type CredentialRefusalCode = "E_UNKNOWN_CREDENTIAL" | "E_CREDENTIAL_NOT_BOUND" | "E_CREDENTIAL_ROLE_NOT_ALLOWED";

/** A credential handed to http.request for one call, with the hosts it may go to; or why not. */
export type CredentialGrant = { ok: true; credential: ResolvedCredential; hosts: readonly string[] } | { ok: false; code: CredentialRefusalCode; message: string };

/** Where the tool host finds a named credential's secret (the backend's encrypted store). */
export interface CredentialResolver {
  /** The credential, if it exists, is bound to hosts and the user's role may use it. */
  resolve(name: string, use: CredentialUse): Promise<CredentialGrant>;
}
