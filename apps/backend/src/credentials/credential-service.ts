import type { CredentialGrant, CredentialInputParsed, CredentialResolver, CredentialRole, CredentialSummary, CredentialUse, Logger, ResolvedCredential, SecretRedactor } from "@weft/types";
import { notFound, ServiceError } from "../service-error.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CredentialTable, StoredCredential } from "./credential-repository.ts";

const owner = (name: string) => `credential:${name}`;

function summary(c: StoredCredential): CredentialSummary {
  return {
    name: c.name,
    kind: c.kind,
    ...(c.header !== undefined ? { header: c.header } : {}),
    ...(c.username !== undefined ? { username: c.username } : {}),
    description: c.description,
    hosts: c.hosts,
    roles: c.roles,
    hasSecret: true,
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** What each kind needs besides the secret, or the problem. */
function shapeProblem(input: Pick<CredentialInputParsed, "kind" | "header" | "username">): string | undefined {
  switch (input.kind) {
    case "bearer":
      return undefined;
    case "header":
      return input.header ? undefined : "A header credential needs `header`, the header's name (e.g. X-Api-Key).";
    case "basic":
      return input.username ? undefined : "A basic credential needs `username` (the secret is the password).";
    default: {
      const never: never = input.kind;
      return never;
    }
  }
}

/** The role a user has now (read at each use, so a demotion applies at once), or undefined for no such user. */
export type RoleOf = (userId: string) => Promise<CredentialRole | undefined>;

/**
 * The named credentials http.request may use: secrets encrypted with the secret box (bound to
 * their name), never returned by the API, and each one known to the redactor, so it is replaced
 * wherever it would be stored, sent or logged. Each is bound to the hosts its owner named and used
 * only in runs of the roles its owner chose (see `resolver`).
 */
export class CredentialService {
  constructor(
    private readonly repo: CredentialTable,
    private readonly box: SecretBox,
    private readonly redactor: SecretRedactor,
    private readonly log: Logger,
    private readonly roleOf: RoleOf,
  ) {}

  /** Hands every stored secret to the redactor (at start; changes keep it current after that). */
  async redactStoredSecrets(): Promise<void> {
    for (const credential of await this.repo.list()) this.remember(credential);
  }

  async list(): Promise<CredentialSummary[]> {
    return (await this.repo.list()).map(summary);
  }

  async create(input: CredentialInputParsed): Promise<CredentialSummary> {
    if (await this.repo.get(input.name))
      throw new ServiceError("ALREADY_EXISTS", `A credential named "${input.name}" exists; replace it with PUT /api/credentials/${input.name}.`, { name: input.name });
    if (input.secret === undefined) throw new ServiceError("VALIDATION_FAILED", "A new credential needs its `secret`.", { field: "secret" });
    if (input.hosts === undefined) {
      throw new ServiceError("VALIDATION_FAILED", 'A new credential needs `hosts`: the URLs it may be sent to, e.g. ["https://api.example.com"]. It is never sent anywhere else.', { field: "hosts" });
    }
    return this.store(input, { secret: input.secret, hosts: input.hosts, roles: input.roles ?? ["owner"] }, Date.now());
  }

  /** Replaces the credential's settings; without `secret`, `hosts` or `roles`, the stored ones are kept. */
  async update(name: string, input: CredentialInputParsed): Promise<CredentialSummary> {
    if (input.name !== name) throw new ServiceError("VALIDATION_FAILED", `The body names "${input.name}" but the URL "${name}"; a credential keeps its name (delete it and create another to rename).`);
    const existing = await this.repo.get(name);
    if (!existing) throw notFound("credential", name, " Create it with POST /api/credentials.");
    const secret = input.secret ?? this.box.decrypt(existing.secretEncrypted, owner(name));
    return this.store(input, { secret, hosts: input.hosts ?? existing.hosts, roles: input.roles ?? existing.roles }, existing.createdAt);
  }

  async delete(name: string): Promise<void> {
    if (!(await this.repo.delete(name))) throw notFound("credential", name);
    this.redactor.forget(owner(name));
  }

  /** The store as the tool host sees it: a credential only for a user whose role may use it, and only if it is bound. */
  resolver(): CredentialResolver {
    return { resolve: (name, use) => this.grant(name, use) };
  }

  private async grant(name: string, use: CredentialUse): Promise<CredentialGrant> {
    const stored = await this.repo.get(name);
    if (!stored) {
      const names = (await this.repo.list()).map((c) => c.name);
      const known = names.length > 0 ? `Known: ${names.join(", ")}.` : "None is stored yet;";
      return { ok: false, code: "E_UNKNOWN_CREDENTIAL", message: `There is no credential named "${name}". ${known} Add it under Settings → Credentials.` };
    }
    if (stored.hosts.length === 0) {
      return {
        ok: false,
        code: "E_CREDENTIAL_NOT_BOUND",
        message: `The credential "${name}" is not bound to any host yet (it was stored before credentials were), so it is not sent anywhere. An owner binds it under Settings → Credentials (or PUT /api/credentials/${name} with "hosts").`,
      };
    }
    const role = use.userId === undefined ? undefined : await this.roleOf(use.userId);
    if (role === undefined || !stored.roles.includes(role)) {
      const who = use.userId === undefined ? "no known user" : role === undefined ? `the user ${use.userId}, who no longer exists` : `a user with the ${role} role`;
      return {
        ok: false,
        code: "E_CREDENTIAL_ROLE_NOT_ALLOWED",
        message: `The credential "${name}" may be used in runs of ${stored.roles.map((r) => `${r}s`).join(" and ") || "nobody"}; this one runs for ${who}. An owner can allow that role under Settings → Credentials, or run it.`,
      };
    }
    return { ok: true, credential: this.resolved(stored), hosts: stored.hosts };
  }

  private async store(input: CredentialInputParsed, kept: { secret: string; hosts: string[]; roles: CredentialRole[] }, createdAt: number): Promise<CredentialSummary> {
    const problem = shapeProblem(input);
    if (problem) throw new ServiceError("VALIDATION_FAILED", problem, { kind: input.kind });
    const stored: StoredCredential = {
      name: input.name,
      kind: input.kind,
      ...(input.kind === "header" && input.header ? { header: input.header } : {}),
      ...(input.kind === "basic" && input.username ? { username: input.username } : {}),
      description: input.description ?? "",
      hosts: [...new Set(kept.hosts)],
      roles: [...new Set(kept.roles)],
      secretEncrypted: this.box.encrypt(kept.secret, owner(input.name)),
      createdAt,
      updatedAt: Date.now(),
    };
    await this.repo.save(stored);
    this.remember(stored);
    return summary(stored);
  }

  private resolved(c: StoredCredential): ResolvedCredential {
    const secret = this.box.decrypt(c.secretEncrypted, owner(c.name));
    switch (c.kind) {
      case "bearer":
        return { kind: "bearer", secret };
      case "header":
        return { kind: "header", header: c.header ?? "Authorization", secret };
      case "basic":
        return { kind: "basic", username: c.username ?? "", secret };
      default: {
        const never: never = c.kind;
        return never;
      }
    }
  }

  private remember(c: StoredCredential): void {
    try {
      const secret = this.box.decrypt(c.secretEncrypted, owner(c.name));
      // The Basic header carries the secret base64-encoded: that form is redacted too.
      const forms = c.kind === "basic" ? [secret, Buffer.from(`${c.username ?? ""}:${secret}`).toString("base64")] : [secret];
      this.redactor.set(owner(c.name), `credential ${c.name}`, forms);
    } catch {
      this.log.warn("a stored credential cannot be decrypted (the master key changed); enter its secret again", { name: c.name });
      this.redactor.forget(owner(c.name));
    }
  }
}
