export { ExecutionEngine, type ValidationResult } from "./execution-engine.ts";
export { freezeWorkflow, isFrozenWorkflow } from "./frozen-workflow.ts";
export { pinOutputs } from "./pinned.ts";
export { newRunId } from "./run-id.ts";
export { DEFAULT_MAX_OUTPUT_BYTES, jsonSizeUpTo, formatBytes } from "./output-size.ts";
export type { EngineOptions, RunOptions } from "./engine-options.ts";
export type { RecordedNode } from "./recorded.ts";
export { LruOutputCache, type CacheEntry, type OutputCache } from "./cache/index.ts";
export { DirectoryWorkflowSource } from "./directory-workflow-source.ts";
