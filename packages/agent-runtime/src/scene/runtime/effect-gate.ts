/** What an agent does to the shared scene: a world write or a published event. */
export type SceneEffectKind = "world" | "event";

/** Lets a scene hold an agent's world write or publish until it is that agent's turn (a replay's `RecordedEffectOrder`). */
export interface EffectGate {
  turn(kind: SceneEffectKind, instanceId: string): Promise<void>;
}
