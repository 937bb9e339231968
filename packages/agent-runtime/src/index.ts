export * from "./scene/index.ts";
