export interface MistakeLimits {
  /** Mistakes in a row (any kind) before the loop stops as `stuck` (default 5). */
  maxConsecutive?: number;
  /** The same failing action in a row before the loop stops as `stuck` (default 3). */
  maxIdentical?: number;
}

export type MistakeVerdict =
  | { kind: "ok"; consecutive: 0; identical: 0 }
  /** A mistake: the model gets its observation and goes on. `firmer` is set on a repeat. */
  | { kind: "mistake"; consecutive: number; identical: number; firmer?: string }
  | { kind: "stuck"; consecutive: number; identical: number; reason: string };

/**
 * Counts a run's consecutive mistakes (unreadable actions, refused or failing calls). A repeat of
 * exactly the same failing action gets a firmer message; too many repeats, or too many mistakes in
 * a row, stop the loop with a clear reason instead of burning steps.
 */
export class MistakeTracker {
  private consecutive = 0;
  private identical = 0;
  private last: string | undefined;
  private readonly maxConsecutive: number;
  private readonly maxIdentical: number;

  constructor(limits: MistakeLimits = {}) {
    this.maxConsecutive = Math.max(1, limits.maxConsecutive ?? 5);
    this.maxIdentical = Math.max(2, limits.maxIdentical ?? 3);
  }

  /** `signature` identifies the failing action (undefined: the step went well); `what` describes it for the reason. */
  record(signature: string | undefined, what = "the same action"): MistakeVerdict {
    if (signature === undefined) {
      this.consecutive = 0;
      this.identical = 0;
      this.last = undefined;
      return { kind: "ok", consecutive: 0, identical: 0 };
    }
    this.consecutive++;
    this.identical = signature === this.last ? this.identical + 1 : 1;
    this.last = signature;
    const counts = { consecutive: this.consecutive, identical: this.identical };
    if (this.identical >= this.maxIdentical) {
      return { kind: "stuck", ...counts, reason: `The model repeated ${what} ${this.identical} times in a row, failing the same way each time; the run stopped instead of trying again.` };
    }
    if (this.consecutive >= this.maxConsecutive) {
      return { kind: "stuck", ...counts, reason: `The model made ${this.consecutive} mistakes in a row (unreadable or failing actions); the run stopped. The last one: ${what}.` };
    }
    if (this.identical >= 2) {
      const left = this.maxIdentical - this.identical;
      return {
        kind: "mistake",
        ...counts,
        firmer: `STOP: this is attempt ${this.identical} of exactly this action, and it failed the same way each time. Repeating it will not work. Change the parameters as the error says, use a different tool, ask the user with \`ask_user\`, or answer in plain text. ${left === 1 ? "One more identical attempt ends this run." : `${left} more identical attempts end this run.`}`,
      };
    }
    return { kind: "mistake", ...counts };
  }
}
