import { NodeSpecSchema, type NodeDefinition, type NodeExecute, type NodeSpecInput } from "@weft/types";

/** Declares a node: the spec is validated and defaulted once, at module load. */
export function defineNode(spec: NodeSpecInput, execute: NodeExecute): NodeDefinition {
  return { spec: NodeSpecSchema.parse(spec), execute };
}
