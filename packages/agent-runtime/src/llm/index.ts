export { OpenAiCompatibleProvider, type ProviderConfig, type ProviderRequest, type LlmOutcome, type ConnectionTestResult } from "./openai-compatible-provider.ts";
export { withLlmCaller } from "./llm-caller.ts";
export { ProfileLlmService, StaticLlmProfileResolver, estimateCall, DEFAULT_COMPLETION_ESTIMATE, type ProfileLlmServiceOptions } from "./llm-service.ts";
export { CALLER_MODEL_HINT, classifyLlmFailure, displayUrl, parseRetryAfter, profileNotFound } from "./errors.ts";
export { toProviderMessages } from "./provider-messages.ts";
export { StreamAssembler } from "./stream-assembler.ts";
export { startDemoLlm, demoRequestHandler, DEMO_MODEL, type DemoLlm, type DemoLlmOptions } from "./demo/demo-llm-server.ts";
export { demoLlmProfile, DEMO_PROFILE_ID } from "./demo/demo-profile.ts";
export { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn, type ScriptedToolCall, type RecordedRequest } from "./testing/scripted-llm-server.ts";
