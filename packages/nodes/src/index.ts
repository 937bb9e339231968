export { defineNode } from "./define-node.ts";
export { NodeRegistry, UnknownNodeTypeError } from "./registry.ts";
export { DuplicateNodeTypeError } from "./registry.ts";
export { builtinNodes, createBuiltinRegistry } from "./builtins.ts";
export { codeWorkers } from "./code/code-workers.ts";
export { sceneNodes } from "./scene/index.ts";
export { streamProgress } from "./fs/tool-call.ts";
export { checkSchedule, Schedule, MIN_SCHEDULE_INTERVAL_MS, type ScheduleCheck, type ScheduleProblem } from "./trigger/schedule-cron.ts";
export { schemaValidator, describeSchemaErrors } from "./support/json-schema-check.ts";
