import { DirectoryWorkflowSource, ExecutionEngine } from "@weft/agent-runtime";
import { createBuiltinRegistry } from "@weft/nodes";
import type { NodeServices } from "@weft/types";

/** An engine with the built-in nodes whose skills come from `directory` (the workflow file's folder). */
export function engineFor(directory: string, services: NodeServices = {}): ExecutionEngine {
  return new ExecutionEngine({ catalog: createBuiltinRegistry(), workflows: new DirectoryWorkflowSource(directory), services });
}
