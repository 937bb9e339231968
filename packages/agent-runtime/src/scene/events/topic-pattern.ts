import { EventTopicSchema, TopicPatternSchema } from "@weft/types";
import { SceneError } from "../errors.ts";

export type TopicMatcher = (topic: string) => boolean;

/** Throws a SceneError (INVALID_TOPIC) unless `topic` is a publishable `namespace.name` topic. */
export function assertTopic(topic: unknown): asserts topic is string {
  const parsed = EventTopicSchema.safeParse(topic);
  if (!parsed.success) {
    const shown = typeof topic === "string" ? JSON.stringify(topic) : `a ${typeof topic}`;
    const wildcard = typeof topic === "string" && topic.includes("*") ? " Wildcards are for subscriptions, not for publishing." : "";
    throw new SceneError("INVALID_TOPIC", `Invalid topic ${shown}: ${parsed.error.issues[0]?.message ?? "not a topic"}.${wildcard}`);
  }
}

/**
 * Compiles a subscription pattern: segments are names, `*` (exactly one segment) or `**` (any
 * number of segments, also none); a lone `*` matches every topic. Throws INVALID_PATTERN.
 */
export function compileTopicPattern(pattern: string): TopicMatcher {
  const parsed = TopicPatternSchema.safeParse(pattern);
  if (!parsed.success) {
    throw new SceneError("INVALID_PATTERN", `Invalid topic pattern ${JSON.stringify(pattern)}: ${parsed.error.issues[0]?.message ?? "not a pattern"}.`);
  }
  if (pattern === "*" || pattern === "**") return () => true;
  const p = pattern.split(".");
  if (p.length === 1) {
    throw new SceneError("INVALID_PATTERN", `Topic pattern ${JSON.stringify(pattern)} matches no topic (topics have two or more segments); did you mean "${pattern}.*" or "${pattern}.**"?`);
  }
  if (!p.includes("**")) {
    return (topic) => {
      const t = topic.split(".");
      return t.length === p.length && p.every((s, i) => s === "*" || s === t[i]);
    };
  }
  return (topic) => matchWithGlobstar(p, topic.split("."));
}

/** Whether pattern segments `p` (with `**`) match topic segments `t`: dynamic programming, no backtracking blow-up. */
function matchWithGlobstar(p: string[], t: string[]): boolean {
  // next[j] = whether p[i+1..] matches t[j..]; built from the last pattern segment backwards.
  let next = new Array<boolean>(t.length + 1).fill(false);
  next[t.length] = true;
  for (let i = p.length - 1; i >= 0; i--) {
    const cur = new Array<boolean>(t.length + 1).fill(false);
    for (let j = t.length; j >= 0; j--) {
      if (p[i] === "**") cur[j] = next[j] || (j < t.length && cur[j + 1]);
      else cur[j] = j < t.length && (p[i] === "*" || p[i] === t[j]) && next[j + 1];
    }
    next = cur;
  }
  return next[0];
}
