import type { Redis } from "ioredis";
import { z } from "zod";
import { messageOf, type Logger } from "@weft/types";
import type { AccountService } from "../accounts/account-service.ts";
import { ACCOUNTS_CHANNEL } from "./queue-names.ts";
import { MESSAGE_MAX_AGE_MS, type QueueSeal } from "./queue-seal.ts";

const AccountChangeSchema = z.object({ origin: z.string(), userId: z.string().min(1).max(200) });
type AccountChange = z.infer<typeof AccountChangeSchema>;

/**
 * A change to a user's credentials made in one API process (a token revoked, a password reset, a role
 * changed, a user deleted, a session ended) reaches the sockets open on the others: each checks that
 * user's sockets against the database again. Sealed like every message on Redis; even so it carries no
 * authority, only "check again", so one that got through could close nothing that still signs in.
 */
export class AccountSignal {
  constructor(
    private readonly origin: string,
    private readonly redis: Redis,
    private readonly seal: QueueSeal,
    private readonly log: Logger,
  ) {}

  /** Announces `accounts`' changes made here and calls `recheck` for the other processes' ones; `subscriber` may be shared with other channels. */
  async follow(accounts: Pick<AccountService, "onCredentialsChanged">, recheck: (userId: string) => void, subscriber: Redis): Promise<this> {
    accounts.onCredentialsChanged((userId) => void this.announce(userId));
    subscriber.on("message", (channel: string, text: string) => {
      if (channel !== ACCOUNTS_CHANNEL) return;
      const change = this.seal.unwrap(ACCOUNTS_CHANNEL, text, AccountChangeSchema, "an account change", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
      if (change && change.origin !== this.origin) recheck(change.userId);
    });
    await subscriber.subscribe(ACCOUNTS_CHANNEL);
    return this;
  }

  private async announce(userId: string): Promise<void> {
    const change: AccountChange = { origin: this.origin, userId };
    await this.redis.publish(ACCOUNTS_CHANNEL, this.seal.wrap(ACCOUNTS_CHANNEL, change)).catch((error: unknown) => this.log.warn("announcing an account change failed", { error: messageOf(error) }));
  }
}
