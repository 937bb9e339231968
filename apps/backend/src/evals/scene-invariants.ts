import { compileTopicPattern, WorldState, type TopicMatcher } from "@weft/agent-runtime";
import { describeSchemaErrors, schemaValidator } from "@weft/nodes";
import { jsonEqual, messageOf, type JsonObject, type SceneInvariant, type SceneInvariantBreak, type SceneLogEntry } from "@weft/types";

/** What one scene run left to check: the world it started from and its session log. */
export interface SceneTrace {
  initialWorld: JsonObject;
  entries: readonly SceneLogEntry[];
}

export interface InvariantReport {
  /** World changes and published events in the log. */
  steps: number;
  /** Each broken invariant at its first broken step, earliest first. */
  broken: SceneInvariantBreak[];
}

type Break = Omit<SceneInvariantBreak, "invariant" | "name" | "link">;

const OP_WORDS = { gte: "≥", lte: "≤", eq: "=", ne: "≠" } as const;

/** What the report calls an invariant without a name. */
export function describeInvariant(inv: SceneInvariant): string {
  switch (inv.kind) {
    case "state":
      return `${inv.path} ${OP_WORDS[inv.op]} ${JSON.stringify(inv.value)}`;
    case "state-regex":
      return `${inv.path} matches /${inv.pattern}/${inv.flags ?? ""}`;
    case "state-schema":
      return `${inv.path} satisfies its JSON Schema`;
    case "followed-by":
      return `every ${inv.event} is followed by ${inv.by} within ${inv.within} step(s)`;
    case "never":
      return `never ${inv.event}`;
    case "at-most":
      return `${inv.event} at most ${inv.times} time(s)`;
  }
}

/** A state invariant's check of one value: undefined when it holds, else why not. */
type StateCheck = (value: unknown) => string | undefined;

function stateCheck(inv: Extract<SceneInvariant, { kind: "state" | "state-regex" | "state-schema" }>): StateCheck {
  const missing = (value: unknown) => value === undefined && inv.optional !== true;
  const shown = (value: unknown) => (value === undefined ? "missing" : JSON.stringify(value));
  switch (inv.kind) {
    case "state":
      return (value) => {
        if (value === undefined) return inv.optional === true ? undefined : `"${inv.path}" is missing, so not ${OP_WORDS[inv.op]} ${JSON.stringify(inv.value)}`;
        const holds =
          inv.op === "eq"
            ? jsonEqual(value, inv.value)
            : inv.op === "ne"
              ? !jsonEqual(value, inv.value)
              : typeof value === "number" && (inv.op === "gte" ? value >= (inv.value as number) : value <= (inv.value as number));
        return holds ? undefined : `"${inv.path}" is ${shown(value)}, not ${OP_WORDS[inv.op]} ${JSON.stringify(inv.value)}`;
      };
    case "state-regex": {
      const pattern = new RegExp(inv.pattern, inv.flags);
      return (value) => {
        if (value === undefined) return missing(value) ? `"${inv.path}" is missing, so it does not match /${inv.pattern}/` : undefined;
        const text = typeof value === "string" ? value : JSON.stringify(value);
        return pattern.test(text) ? undefined : `"${inv.path}" is ${shown(value)}, which does not match /${inv.pattern}/${inv.flags ?? ""}`;
      };
    }
    case "state-schema": {
      const validate = schemaValidator(inv.schema, "schema");
      return (value) => {
        if (value === undefined) return missing(value) ? `"${inv.path}" is missing` : undefined;
        return validate(value) === true ? undefined : `"${inv.path}" is ${shown(value)}, not valid against the schema: ${describeSchemaErrors(validate)}`;
      };
    }
  }
}

/** Checks a JSON Schema invariant's schema compiles; the reason when not (a suite is refused with it). */
export function invariantProblem(inv: SceneInvariant): string | undefined {
  if (inv.kind !== "state-schema") return undefined;
  try {
    schemaValidator(inv.schema, "schema");
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

/** One invariant's state while the log is walked. */
interface Watch {
  onStep(step: number, seq: number, world: WorldState, event: { topic: string } | undefined): Break | undefined;
  /** After the last step: a break the end of the log reveals (a followed-by still waiting). */
  atEnd(lastStep: number, lastSeq: number | undefined): Break | undefined;
}

function eventWatch(inv: Extract<SceneInvariant, { kind: "followed-by" | "never" | "at-most" }>): Watch {
  const matches: TopicMatcher = compileTopicPattern(inv.event);
  switch (inv.kind) {
    case "never":
      return {
        onStep: (step, seq, _world, event) =>
          event && matches(event.topic) ? { step, seq, message: `event "${event.topic}" was published at step ${step}; it never should be`, value: event.topic } : undefined,
        atEnd: () => undefined,
      };
    case "at-most": {
      let count = 0;
      return {
        onStep(step, seq, _world, event) {
          if (!event || !matches(event.topic)) return undefined;
          count += 1;
          return count > inv.times
            ? { step, seq, message: `event "${event.topic}" was published for the ${count}${ordinal(count)} time at step ${step}; at most ${inv.times} allowed`, value: count }
            : undefined;
        },
        atEnd: () => undefined,
      };
    }
    case "followed-by": {
      const confirms = compileTopicPattern(inv.by);
      // Each confirming event answers the oldest event still waiting for one.
      const waiting: Array<{ step: number; topic: string }> = [];
      const late = (step: number, seq: number | undefined, w: { step: number; topic: string }, ended: boolean): Break => ({
        step,
        ...(seq !== undefined ? { seq } : {}),
        message: ended
          ? `"${w.topic}" at step ${w.step} was not followed by "${inv.by}": the session ended at step ${step}`
          : `"${w.topic}" at step ${w.step} was not followed by "${inv.by}" within ${inv.within} step(s)`,
        value: { event: w.topic, atStep: w.step },
      });
      return {
        onStep(step, seq, _world, event) {
          if (event && confirms(event.topic) && waiting.length > 0) waiting.shift();
          else if (event && matches(event.topic)) waiting.push({ step, topic: event.topic });
          const first = waiting[0];
          return first && step - first.step >= inv.within ? late(step, seq, first, false) : undefined;
        },
        atEnd: (lastStep, lastSeq) => (waiting[0] ? late(lastStep, lastSeq, waiting[0], true) : undefined),
      };
    }
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
}

function watchOf(inv: SceneInvariant): Watch {
  switch (inv.kind) {
    case "state":
    case "state-regex":
    case "state-schema": {
      const check = stateCheck(inv);
      const at = (step: number, seq: number | undefined, world: WorldState): Break | undefined => {
        const value = world.get(inv.path);
        const problem = check(value);
        return problem === undefined ? undefined : { step, ...(seq !== undefined ? { seq } : {}), message: `${problem} at step ${step}`, value: value ?? null };
      };
      return { onStep: (step, seq, world) => at(step, step === 0 ? undefined : seq, world), atEnd: () => undefined };
    }
    case "followed-by":
    case "never":
    case "at-most":
      return eventWatch(inv);
  }
}

/**
 * Walks the session log step by step — a step is one world change or one published event, step 0 the world before
 * them — and reports each invariant's first broken step with the value there. `linkOf` makes the timeline link of a seq.
 */
export async function checkSceneInvariants(invariants: readonly SceneInvariant[], trace: SceneTrace, linkOf: (seq: number | undefined) => string): Promise<InvariantReport> {
  const world = new WorldState({ initial: trace.initialWorld, historyLimit: 0 });
  const watches = invariants.map(watchOf);
  const found = new Map<number, Break>();
  const visit = (step: number, seq: number, event: { topic: string } | undefined) => {
    watches.forEach((watch, i) => {
      if (found.has(i)) return;
      const broken = watch.onStep(step, seq, world, event);
      if (broken) found.set(i, broken);
    });
  };
  // Step 0: the world as the run started; only state invariants can break there.
  invariants.forEach((inv, i) => {
    if (inv.kind !== "state" && inv.kind !== "state-regex" && inv.kind !== "state-schema") return;
    const broken = watches[i].onStep(0, 0, world, undefined);
    if (broken) found.set(i, broken);
  });
  let step = 0;
  let lastSeq: number | undefined;
  for (const entry of trace.entries) {
    if (entry.kind === "world.changed") {
      if (entry.change.op === "set") await world.set(entry.change.path, entry.change.after ?? null);
      else await world.delete(entry.change.path);
      step += 1;
      lastSeq = entry.seq;
      visit(step, entry.seq, undefined);
    } else if (entry.kind === "event") {
      step += 1;
      lastSeq = entry.seq;
      visit(step, entry.seq, { topic: entry.topic });
    }
  }
  watches.forEach((watch, i) => {
    if (found.has(i)) return;
    const broken = watch.atEnd(step, lastSeq);
    if (broken) found.set(i, broken);
  });
  const broken = [...found.entries()]
    .map(([i, b]): SceneInvariantBreak => ({ invariant: i, name: invariants[i].name ?? describeInvariant(invariants[i]), ...b, link: linkOf(b.seq) }))
    .sort((a, b) => a.step - b.step || a.invariant - b.invariant);
  return { steps: step, broken };
}
