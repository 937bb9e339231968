import type { Scene } from "@weft/types";
import { SceneError } from "../errors.ts";
import { compileTopicPattern, type TopicMatcher } from "../events/topic-pattern.ts";

interface Route {
  instanceId: string;
  patterns: string[];
  matchers: TopicMatcher[];
}

/**
 * Decides which agents a published event wakes: those whose profile subscribes to a matching
 * pattern, plus those a scene `event` trigger names. By default an agent is not woken by its own
 * events (`echoOwnEvents`), which rules out self-loops.
 */
export class SceneRouter {
  private readonly routes: Route[];

  constructor(
    private readonly scene: Scene,
    subscriptionsOf: (instanceId: string) => readonly string[],
  ) {
    this.routes = scene.agents.map((agent) => {
      const patterns = [...subscriptionsOf(agent.instanceId)];
      for (const t of scene.triggers) {
        if (t.kind === "event" && (!t.instanceIds || t.instanceIds.includes(agent.instanceId))) patterns.push(t.topic);
      }
      const unique = [...new Set(patterns)];
      const matchers = unique.map((p) => {
        try {
          return compileTopicPattern(p);
        } catch (err) {
          throw new SceneError("INVALID_PATTERN", `Agent "${agent.instanceId}" (profile "${agent.profileId}") subscribes to an invalid pattern: ${(err as Error).message}`, {
            instanceId: agent.instanceId,
            pattern: p,
          });
        }
      });
      return { instanceId: agent.instanceId, patterns: unique, matchers };
    });
  }

  /** Instance ids to wake for an event, in the scene's agent order. */
  targets(topic: string, source: string): string[] {
    return this.routes.filter((r) => (this.scene.echoOwnEvents || r.instanceId !== source) && r.matchers.some((m) => m(topic))).map((r) => r.instanceId);
  }

  /** The patterns an agent listens to (profile subscriptions and scene event triggers). */
  patternsOf(instanceId: string): string[] {
    return [...(this.routes.find((r) => r.instanceId === instanceId)?.patterns ?? [])];
  }
}
