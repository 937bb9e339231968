export { ManifestEntrySchema, ManifestParamSchema, skillEntryFromWorkflow, toolEntryFromNodeSpec, type ManifestEntry, type ManifestParam } from "./manifest/entry.ts";
export { Manifest, buildManifest, type ManifestSource, type ToolResolution } from "./manifest/manifest.ts";
export { SAFE_TOOL_NAME, assignToolNames, baseToolName, type ToolKind } from "./manifest/safe-name.ts";
export { PROTOCOL_RULES, renderManifestPrompt } from "./manifest/render-prompt.ts";
export { manifestToOpenAiTools } from "./manifest/openai-tools.ts";
export { parseAction } from "./parser/parse-action.ts";
export { parseToolCallArguments } from "./parser/tool-call.ts";
export { callAsTextError, jsonCallError, quotedActionError } from "./parser/text-calls.ts";
export {
  CallResultSchema,
  ErrorResultSchema,
  PARSE_ERROR_CODES,
  ParseErrorCodeSchema,
  ParseResultSchema,
  QuotedActionSchema,
  TextResultSchema,
  type CallResult,
  type ErrorResult,
  type ParseErrorCode,
  type ParseResult,
  type QuotedAction,
  type TextResult,
} from "./parser/result.ts";
export { DEFAULT_OBSERVATION_CHARS, formatObservation, type ObservationOptions, type ObservationSource } from "./observation.ts";
