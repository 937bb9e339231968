export * from "./scene/index.ts";
export * from "./engine/index.ts";
export * from "./action/index.ts";
export * from "./llm/index.ts";
export * from "./conversation/index.ts";
export * from "./toolhost/index.ts";
export * from "./agent/index.ts";
export * from "./tracing/index.ts";
