import type { Redis } from "ioredis";
import { z } from "zod";
import { messageOf, type Logger } from "@weft/types";
import type { RunRuntime } from "../runtime/run-runtime.ts";
import { SETTINGS_CHANNEL } from "./queue-names.ts";
import { MESSAGE_MAX_AGE_MS, type QueueSeal } from "./queue-seal.ts";

/**
 * The settings every process applies itself: tool permissions (the tool host's policy) and MCP servers, reloaded; and
 * what each process remembers of the budgets and LLM profiles it reads before every LLM call, forgotten.
 */
const SettingsChangeSchema = z.object({ origin: z.string(), what: z.enum(["permissions", "mcp", "budgets", "llm-profiles"]) });
type SettingsChange = z.infer<typeof SettingsChangeSchema>;

/**
 * Settings saved in one process reach the others (workers, other API processes) at once: the saver
 * announces what changed, each other process reads it again from the shared database. Without it an
 * agent on a worker would keep asking with a rule the user removed until the worker restarted.
 */
export class SettingsSignal {
  /** The reloads under way: a job taken meanwhile waits for them (`applied`). */
  private reloading = new Set<Promise<void>>();

  constructor(
    private readonly origin: string,
    private readonly redis: Redis,
    private readonly seal: QueueSeal,
    private readonly log: Logger,
  ) {}

  /** Announces this process's saves of `runtime`'s settings, and applies the other processes' ones; `subscriber` may be shared with other channels. */
  async follow(runtime: Pick<RunRuntime, "permissions" | "mcpSettings" | "llmProfiles" | "usage">, subscriber: Redis): Promise<this> {
    runtime.permissions.onSaved(() => this.announce("permissions"));
    runtime.mcpSettings.onSaved(() => this.announce("mcp"));
    runtime.usage.budgets.onSaved(() => this.announce("budgets"));
    runtime.llmProfiles.onSaved(() => this.announce("llm-profiles"));
    subscriber.on("message", (channel: string, text: string) => {
      if (channel !== SETTINGS_CHANNEL) return;
      const change = this.seal.unwrap(SETTINGS_CHANNEL, text, SettingsChangeSchema, "a settings announcement", { maxAgeMs: MESSAGE_MAX_AGE_MS, once: true });
      if (!change || change.origin === this.origin) return;
      let reload: Promise<void>;
      switch (change.what) {
        case "permissions":
          reload = runtime.permissions.reload(this.log);
          break;
        case "mcp":
          reload = runtime.mcpSettings.reload(this.log);
          break;
        // Forgotten at once, read again by the next call: no reload to wait for.
        case "budgets":
          runtime.usage.budgets.forget();
          return;
        case "llm-profiles":
          runtime.llmProfiles.forgetReads();
          return;
        default: {
          const never: never = change.what;
          return never;
        }
      }
      const reloaded = reload.then(
        () => this.log.info("settings saved elsewhere applied", { what: change.what }),
        (error: unknown) => this.log.warn("applying settings saved elsewhere failed", { what: change.what, error: messageOf(error) }),
      );
      this.reloading.add(reloaded);
      void reloaded.finally(() => this.reloading.delete(reloaded));
    });
    await subscriber.subscribe(SETTINGS_CHANNEL);
    return this;
  }

  /**
   * Resolves once the settings announced so far are applied. The saving request answers only after
   * its announcement was published (Redis hands it to subscribers before the publish returns), so a
   * run started after that answer finds the new settings here.
   */
  async applied(): Promise<void> {
    await Promise.all(this.reloading);
  }

  private async announce(what: SettingsChange["what"]): Promise<void> {
    const change: SettingsChange = { origin: this.origin, what };
    await this.redis
      .publish(SETTINGS_CHANNEL, this.seal.wrap(SETTINGS_CHANNEL, change))
      .catch((error: unknown) => this.log.warn("announcing a settings change failed", { what, error: messageOf(error) }));
  }
}
