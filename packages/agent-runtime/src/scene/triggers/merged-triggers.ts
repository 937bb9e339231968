import type { AgentTrigger } from "@weft/types";

/**
 * Which trigger each merged (coalesced) trigger of a mailbox first replaced. A busy scene merges
 * thousands of triggers that never run; rather than a log entry for each merge, the mailbox counts
 * them (`coalesced` on the trigger and the mailbox) and the log gets one `trigger.coalesced` entry
 * when a merged trigger starts, which is what a replay needs to recognise it.
 */
export class MergedTriggers {
  private readonly origins = new Map<string, string>();

  /** `merged` took the place of `replaced` in the queue. */
  merged(merged: AgentTrigger, replaced: AgentTrigger): void {
    const origin = this.origins.get(replaced.id) ?? replaced.id;
    this.origins.delete(replaced.id);
    this.origins.set(merged.id, origin);
  }

  /**
   * The id of the trigger first replaced, when `trigger` is a merged one starting for the first time
   * (a resumed one was logged before the restart); undefined otherwise. After a restart the origin
   * of a merged trigger is not known: its own id stands for it.
   */
  started(trigger: AgentTrigger): string | undefined {
    const origin = this.origins.get(trigger.id);
    this.origins.delete(trigger.id);
    if (trigger.coalesced === 0 || trigger.resumed) return undefined;
    return origin ?? trigger.id;
  }

  /** A merged trigger left the queue without running (dropped). */
  forget(trigger: AgentTrigger): void {
    this.origins.delete(trigger.id);
  }
}
