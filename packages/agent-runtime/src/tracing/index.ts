export * from "./tracing.ts";
