import type { SceneLogEntry } from "@weft/types";
import type { SceneLog } from "../log/scene-log.ts";
import type { EffectGate, SceneEffectKind } from "../runtime/effect-gate.ts";

interface Effect {
  kind: SceneEffectKind;
  agent: string;
}

function effectOf(entry: SceneLogEntry): Effect | undefined {
  if (entry.kind === "world.changed" && entry.change.agentId !== undefined) return { kind: "world", agent: entry.change.agentId };
  if (entry.kind === "event") return { kind: "event", agent: entry.source };
  return undefined;
}

const describe = (e: Effect) => `${e.agent} ${e.kind === "world" ? "writes the world" : "publishes an event"}`;

/**
 * The order in which agents changed the world and published events in a recorded session. In a
 * replay, agents deliberating at the same time get their model outputs at once, so their writes
 * would interleave differently than they did; this gate lets each write or publish through only
 * when the record says that agent acted next. When the replay cannot follow the record (nothing
 * moved for `stallMs` while agents wait), that is reported as a divergence and the gate opens.
 */
export class RecordedEffectOrder implements EffectGate {
  private readonly order: Effect[];
  private next = 0;
  private waiting: Array<Effect & { release: () => void }> = [];
  private stall: ReturnType<typeof setTimeout> | undefined;
  readonly divergences: string[] = [];

  constructor(
    log: readonly SceneLogEntry[],
    private readonly stallMs = 2000,
  ) {
    this.order = log.flatMap((e) => effectOf(e) ?? []);
  }

  /** Follows the replay's log: each committed change or event moves the record on. */
  attach(log: SceneLog): () => void {
    return log.onAppend((entry) => {
      const effect = effectOf(entry);
      if (effect) this.committed(effect);
    });
  }

  turn(kind: SceneEffectKind, instanceId: string): Promise<void> {
    const head = this.order[this.next];
    if (!head || (head.kind === kind && head.agent === instanceId)) return Promise.resolve();
    return new Promise((release) => {
      this.waiting.push({ kind, agent: instanceId, release });
      this.armStall();
    });
  }

  /** Opens the gate for good and clears its timer. */
  dispose(): void {
    this.next = this.order.length;
    this.releaseAll();
  }

  private committed(effect: Effect): void {
    const head = this.order[this.next];
    if (!head) return;
    if (head.kind !== effect.kind || head.agent !== effect.agent) {
      this.divergences.push(`Recorded effect #${this.next + 1} is "${describe(head)}", but in the replay ${describe(effect)}.`);
      return;
    }
    this.next++;
    this.releaseTurn();
  }

  private releaseTurn(): void {
    const head = this.order[this.next];
    if (!head) return this.releaseAll();
    const index = this.waiting.findIndex((w) => w.kind === head.kind && w.agent === head.agent);
    if (index >= 0) this.waiting.splice(index, 1)[0]!.release();
    if (this.waiting.length > 0) this.armStall();
    else this.clearStall();
  }

  private releaseAll(): void {
    this.clearStall();
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.release();
  }

  private armStall(): void {
    this.clearStall();
    this.stall = setTimeout(() => {
      const head = this.order[this.next];
      const blocked = this.waiting.map(describe).join("; ");
      this.divergences.push(`The replay could not follow the recorded order: the record expects "${head ? describe(head) : "nothing"}" next, while waiting: ${blocked}.`);
      this.dispose();
    }, this.stallMs);
  }

  private clearStall(): void {
    if (this.stall !== undefined) clearTimeout(this.stall);
    this.stall = undefined;
  }
}
