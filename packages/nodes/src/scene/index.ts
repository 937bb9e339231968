import type { NodeDefinition } from "@weft/types";
import { privateGet } from "./private-get.ts";
import { privateSet } from "./private-set.ts";
import { publishEvent } from "./publish-event.ts";
import { worldGet } from "./world-get.ts";
import { worldSet } from "./world-set.ts";
import { worldUpdate } from "./world-update.ts";

export { privateGet, privateSet, publishEvent, worldGet, worldSet, worldUpdate };

/** The nodes agents use to read and change a scene: world state, private state, events. */
export const sceneNodes: NodeDefinition[] = [worldGet, worldSet, worldUpdate, privateGet, privateSet, publishEvent];
