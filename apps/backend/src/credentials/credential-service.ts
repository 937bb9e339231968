import type { CredentialInput, CredentialResolver, CredentialSummary, Logger, ResolvedCredential, SecretRedactor } from "@weft/types";
import { notFound, ServiceError } from "../service-error.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CredentialRepository, StoredCredential } from "../storage/credential-repository.ts";

const owner = (name: string) => `credential:${name}`;

function summary(c: StoredCredential): CredentialSummary {
  return {
    name: c.name,
    kind: c.kind,
    ...(c.header !== undefined ? { header: c.header } : {}),
    ...(c.username !== undefined ? { username: c.username } : {}),
    description: c.description,
    hasSecret: true,
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}

/** What each kind needs besides the secret, or the problem. */
function shapeProblem(input: Pick<CredentialInput, "kind" | "header" | "username">): string | undefined {
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

/**
 * The named credentials http.request may use: secrets encrypted with the secret box (bound to
 * their name), never returned by the API, and each one known to the redactor, so it is replaced
 * wherever it would be stored, sent or logged.
 */
export class CredentialService {
  constructor(
    private readonly repo: CredentialRepository,
    private readonly box: SecretBox,
    private readonly redactor: SecretRedactor,
    private readonly log: Logger,
  ) {}

  /** Hands every stored secret to the redactor (at start; changes keep it current after that). */
  async redactStoredSecrets(): Promise<void> {
    for (const credential of await this.repo.list()) this.remember(credential);
  }

  async list(): Promise<CredentialSummary[]> {
    return (await this.repo.list()).map(summary);
  }

  async create(input: CredentialInput): Promise<CredentialSummary> {
    if (await this.repo.get(input.name))
      throw new ServiceError("ALREADY_EXISTS", `A credential named "${input.name}" exists; replace it with PUT /api/credentials/${input.name}.`, { name: input.name });
    if (input.secret === undefined) throw new ServiceError("VALIDATION_FAILED", "A new credential needs its `secret`.", { field: "secret" });
    return this.store(input, input.secret, Date.now());
  }

  /** Replaces the credential's settings; without `secret`, the stored one is kept. */
  async update(name: string, input: CredentialInput): Promise<CredentialSummary> {
    if (input.name !== name) throw new ServiceError("VALIDATION_FAILED", `The body names "${input.name}" but the URL "${name}"; a credential keeps its name (delete it and create another to rename).`);
    const existing = await this.repo.get(name);
    if (!existing) throw notFound("credential", name, " Create it with POST /api/credentials.");
    return this.store(input, input.secret ?? this.box.decrypt(existing.secretEncrypted, owner(name)), existing.createdAt);
  }

  async delete(name: string): Promise<void> {
    if (!(await this.repo.delete(name))) throw notFound("credential", name);
    this.redactor.forget(owner(name));
  }

  /** The store as the tool host sees it. */
  resolver(): CredentialResolver {
    return {
      resolve: async (name) => {
        const stored = await this.repo.get(name);
        return stored ? this.resolved(stored) : undefined;
      },
      names: async () => (await this.repo.list()).map((c) => c.name),
    };
  }

  private async store(input: CredentialInput, secret: string, createdAt: number): Promise<CredentialSummary> {
    const problem = shapeProblem(input);
    if (problem) throw new ServiceError("VALIDATION_FAILED", problem, { kind: input.kind });
    const stored: StoredCredential = {
      name: input.name,
      kind: input.kind,
      ...(input.kind === "header" && input.header ? { header: input.header } : {}),
      ...(input.kind === "basic" && input.username ? { username: input.username } : {}),
      description: input.description ?? "",
      secretEncrypted: this.box.encrypt(secret, owner(input.name)),
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
