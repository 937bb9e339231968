import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Logger } from "@weft/types";
import { ServiceError, notFound } from "../service-error.ts";
import type { Principal } from "./principal.ts";
import { tokenView, userView, type AccountRepository, type TokenView, type UserRecord, type UserView } from "./account-records.ts";
import type { Role } from "./roles.ts";

/** The bootstrap owner: the user the install's access token acts as. Always present, never deleted or demoted. */
export const BOOTSTRAP_OWNER_ID = "owner";
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** Personal API tokens start with this, so the trust boundary knows where to look (and secret scanners can find leaked ones). */
export const PERSONAL_TOKEN_PREFIX = "weft_pat_";
const SESSION_PREFIX = "s1.";
export const MIN_PASSWORD_LENGTH = 8;

/** Why a sign-in was refused: one message for an unknown user and a wrong password, so neither is revealed. */
export class SignInRefusedError extends Error {
  readonly code = "UNAUTHENTICATED";
  constructor() {
    super("Wrong username or password.");
  }
}

/** Session and token secrets are 256 random bits: SHA-256 is enough to store them (no slow hash is needed against guessing). */
function digest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

function secret(): string {
  return randomBytes(32).toString("base64url");
}

export function normaliseUsername(username: string): string {
  return username.trim().toLowerCase();
}

function principalOf(user: UserRecord, kind: Principal["kind"]): Principal {
  return { kind, userId: user.id, username: user.username, role: user.role };
}

export interface NewUser {
  username: string;
  name?: string;
  role: Role;
  password: string;
}

export interface UserChange {
  name?: string;
  role?: Role;
  password?: string;
}

/**
 * Users, their sessions and personal API tokens. Passwords are hashed with `Bun.password` (argon2id,
 * memory-hard); session and token secrets are random and stored as their SHA-256, so a copy of the
 * database opens nothing.
 */
export class AccountService {
  /** A hash verified against when the user does not exist, so a wrong username takes as long as a wrong password. */
  private decoy: Promise<string> | undefined;
  private readonly changeListeners: ((userId: string) => void)[] = [];

  constructor(
    private readonly repository: AccountRepository,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates the bootstrap owner on first start (the access token's user), and clears out expired sessions. */
  async ensureBootstrapOwner(): Promise<void> {
    await this.repository.deleteExpiredSessions(this.now());
    const at = this.now();
    // If absent: API processes starting at once on one database all get here first.
    await this.repository.insertUserIfAbsent({ id: BOOTSTRAP_OWNER_ID, username: "owner", name: "Owner", role: "owner", passwordHash: null, createdAt: at, updatedAt: at });
  }

  /**
   * Calls `listener` with a user's id after anything that may change who their credentials sign in or as
   * what (role, password, deletion, a session ended, a token revoked), so holders of a principal (open
   * WebSockets) check it again at once.
   */
  onCredentialsChanged(listener: (userId: string) => void): void {
    this.changeListeners.push(listener);
  }

  private changed(userId: string): void {
    for (const listener of this.changeListeners) listener(userId);
  }

  /** The principal the install's access token stands for. */
  bootstrapPrincipal(): Principal {
    return { kind: "access-token", userId: BOOTSTRAP_OWNER_ID, username: "owner", role: "owner" };
  }

  async listUsers(): Promise<UserView[]> {
    return (await this.repository.listUsers()).map(userView);
  }

  async getUser(id: string): Promise<UserView> {
    const user = await this.repository.getUser(id);
    if (!user) throw notFound("user", id);
    return userView(user);
  }

  async createUser(input: NewUser): Promise<UserView> {
    const username = normaliseUsername(input.username);
    if (await this.repository.getUserByUsername(username)) throw new ServiceError("ALREADY_EXISTS", `A user named "${username}" exists already; pick another username.`, { username });
    const at = this.now();
    const user: UserRecord = {
      id: `u_${randomUUID()}`,
      username,
      name: input.name?.trim() || username,
      role: input.role,
      passwordHash: await Bun.password.hash(input.password, { algorithm: "argon2id" }),
      createdAt: at,
      updatedAt: at,
    };
    await this.repository.insertUser(user);
    this.log.info("user created", { userId: user.id, role: user.role });
    return userView(user);
  }

  /**
   * An owner's change to a user. A new password set by an owner is a reset (the user forgot it, or it
   * leaked): it ends the user's sessions and revokes their personal API tokens, since whoever held the
   * old password may have made one.
   */
  async updateUser(id: string, change: UserChange): Promise<UserView> {
    return this.applyChange(id, change, true);
  }

  private async applyChange(id: string, change: UserChange, revokeTokens: boolean): Promise<UserView> {
    if (id === BOOTSTRAP_OWNER_ID && change.role !== undefined && change.role !== "owner") {
      throw new ServiceError("CONFLICT", "The bootstrap owner (the access token's user) stays an owner.", { id });
    }
    const passwordHash = change.password === undefined ? undefined : await Bun.password.hash(change.password, { algorithm: "argon2id" });
    if (!(await this.repository.updateUser(id, { name: change.name?.trim() || undefined, role: change.role, passwordHash }, this.now()))) throw notFound("user", id);
    const tokensRevoked = passwordHash !== undefined && revokeTokens ? await this.repository.deleteTokensOf(id) : 0;
    if (passwordHash !== undefined) await this.repository.deleteSessionsOf(id);
    this.log.info("user changed", { userId: id, ...(change.role ? { role: change.role } : {}), passwordChanged: passwordHash !== undefined, tokensRevoked });
    this.changed(id);
    return this.getUser(id);
  }

  async deleteUser(id: string): Promise<void> {
    if (id === BOOTSTRAP_OWNER_ID) throw new ServiceError("CONFLICT", "The bootstrap owner (the access token's user) cannot be deleted.", { id });
    if (!(await this.repository.deleteUser(id))) throw notFound("user", id);
    this.log.info("user deleted", { userId: id });
    this.changed(id);
  }

  /**
   * A user's own password change: the current one must be right. Other sessions end (the caller opens a new
   * one); their personal tokens stay (each can be revoked on its own), unlike an owner's reset.
   */
  async changeOwnPassword(userId: string, current: string, next: string): Promise<void> {
    const user = await this.repository.getUser(userId);
    if (!user || user.passwordHash === null || !(await Bun.password.verify(current, user.passwordHash))) {
      throw new ServiceError("VALIDATION_FAILED", "The current password is not right.", { field: "currentPassword" });
    }
    await this.applyChange(userId, { password: next }, false);
  }

  /** Username and password → the user, or SignInRefusedError (the same for both mistakes). */
  async verifyPassword(username: string, password: string): Promise<UserRecord> {
    const user = await this.repository.getUserByUsername(normaliseUsername(username));
    if (!user || user.passwordHash === null) {
      this.decoy ??= Bun.password.hash("decoy password, never matches", { algorithm: "argon2id" });
      await Bun.password.verify(password, await this.decoy);
      throw new SignInRefusedError();
    }
    if (!(await Bun.password.verify(password, user.passwordHash))) throw new SignInRefusedError();
    return user;
  }

  /** A new session for the user: the cookie's value (shown to no one else; stored as its hash). */
  async openSession(userId: string): Promise<string> {
    const value = SESSION_PREFIX + secret();
    const at = this.now();
    await this.repository.insertSession({ hash: digest(value), userId, createdAt: at, expiresAt: at + SESSION_TTL_MS });
    return value;
  }

  async sessionPrincipal(cookie: string): Promise<Principal | undefined> {
    if (!cookie.startsWith(SESSION_PREFIX)) return undefined;
    const user = await this.repository.sessionUser(digest(cookie), this.now());
    return user ? principalOf(user, "session") : undefined;
  }

  async endSession(cookie: string): Promise<void> {
    const user = await this.repository.sessionUser(digest(cookie), this.now());
    await this.repository.deleteSession(digest(cookie));
    if (user) this.changed(user.id);
  }

  async tokenPrincipal(token: string): Promise<Principal | undefined> {
    if (!token.startsWith(PERSONAL_TOKEN_PREFIX)) return undefined;
    const found = await this.repository.tokenUser(digest(token), this.now());
    return found ? principalOf(found.user, "personal-token") : undefined;
  }

  /** A personal API token for the user: the secret is in this answer only. */
  async createToken(userId: string, name: string): Promise<{ token: TokenView; secret: string }> {
    const value = PERSONAL_TOKEN_PREFIX + secret();
    const record = { id: `t_${randomUUID()}`, userId, name: name.trim(), hash: digest(value), createdAt: this.now(), lastUsedAt: null };
    await this.repository.insertToken(record);
    this.log.info("personal token created", { userId, tokenId: record.id });
    return { token: tokenView(record), secret: value };
  }

  async listTokens(userId: string): Promise<TokenView[]> {
    return (await this.repository.listTokens(userId)).map(tokenView);
  }

  async revokeToken(userId: string, id: string): Promise<void> {
    if (!(await this.repository.deleteToken(userId, id))) throw notFound("personal token", id);
    this.log.info("personal token revoked", { userId, tokenId: id });
    this.changed(userId);
  }

  /** An owner's view of another user's tokens: NOT_FOUND for an unknown user rather than an empty list. */
  async listUserTokens(userId: string): Promise<TokenView[]> {
    await this.getUser(userId);
    return this.listTokens(userId);
  }

  async revokeUserToken(userId: string, id: string): Promise<void> {
    await this.getUser(userId);
    await this.revokeToken(userId, id);
  }
}
