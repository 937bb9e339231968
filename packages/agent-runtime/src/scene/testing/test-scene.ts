import type { SceneInput } from "@weft/types";
import { SceneRuntime, type SceneRuntimeOptions } from "../index.ts";

export interface TestSceneOptions extends Partial<Omit<SceneRuntimeOptions, "scene">> {
  /** The scene's world at start. */
  initialWorldState?: SceneInput["initialWorldState"];
}

/**
 * A scene named "s" whose agents are `agents` (instance id → profile id), as the scene nodes' tests use it:
 * no profile says anything and deliberations do nothing unless `options` says otherwise.
 */
export function testScene(agents: Record<string, string>, options: TestSceneOptions = {}): SceneRuntime {
  const { initialWorldState, ...rest } = options;
  return new SceneRuntime({
    scene: {
      id: "s",
      name: "s",
      agents: Object.entries(agents).map(([instanceId, profileId]) => ({ instanceId, profileId })),
      ...(initialWorldState ? { initialWorldState } : {}),
    },
    profileOf: () => ({}),
    deliberate: async () => {},
    ...rest,
  });
}
