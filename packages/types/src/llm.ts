import { z } from "zod";

/** OpenAI-compatible chat message (seed 000 §4.1). */
export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).optional(),
    /** DeepSeek-style reasoning, passed back to providers that require it; never parsed for actions. */
    reasoning_content: z.string().optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const FunctionToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({ name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()) }),
});
export type FunctionTool = z.infer<typeof FunctionToolSchema>;

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmChatRequest {
  messages: ChatMessage[];
  model?: string;
  temperature?: number;
  maxTokens?: number;
  tools?: FunctionTool[];
  /** Which configured LLM profile to use; the default profile when absent. */
  profileId?: string;
}

export type LlmStreamChunk = { kind: "text"; text: string } | { kind: "reasoning"; text: string };

export interface LlmChatResult {
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage?: LlmUsage;
  model: string;
  /** Provider's raw response (or assembled stream), kept for debugging (seed 000 §4.2). */
  raw?: unknown;
}

export interface LlmCallOptions {
  signal?: AbortSignal;
  onChunk?: (chunk: LlmStreamChunk) => void;
}

/** The LLM as nodes see it. Errors are thrown as `NodeFailure` with an LLM error code. */
export interface LlmService {
  chat(request: LlmChatRequest, options?: LlmCallOptions): Promise<LlmChatResult>;
}
