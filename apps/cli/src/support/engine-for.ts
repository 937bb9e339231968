import { DirectoryWorkflowSource, ExecutionEngine } from "@weft/agent-runtime";
import { createBuiltinRegistry } from "@weft/nodes";
import type { NodeCatalog, NodeServices } from "@weft/types";

/** An engine with the built-in nodes (or `catalog`) whose skills come from `directory` (the workflow file's folder). */
export function engineFor(directory: string, services: NodeServices = {}, catalog: NodeCatalog = createBuiltinRegistry()): ExecutionEngine {
  return new ExecutionEngine({ catalog, workflows: new DirectoryWorkflowSource(directory), services });
}
