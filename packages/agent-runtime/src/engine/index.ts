export { ExecutionEngine, type ValidationResult } from "./execution-engine.ts";
export type { EngineOptions, OutputCache, RunOptions } from "./engine-options.ts";
export { LruOutputCache } from "./lru-output-cache.ts";
export { DirectoryWorkflowSource } from "./directory-workflow-source.ts";
