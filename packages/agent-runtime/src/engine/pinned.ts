import type { NodeDefinition, NodeSpec, NodeValues } from "@weft/types";

/** A node with pinned outputs (`node.pinned`): same ports, and instead of its work it hands on the pinned values. */
export function pinnedDefinition(spec: NodeSpec, pinned: NodeValues): NodeDefinition {
  return { spec, execute: () => pinned };
}
