import { z } from "zod";

/** The part of a Chat Completions request the demo LLM reads; other fields are accepted and ignored. */
const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

export const DemoMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.null(), z.array(ContentPartSchema)]).optional(),
  tool_calls: z.array(z.looseObject({ id: z.string(), type: z.string().optional(), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
  tool_call_id: z.string().optional(),
});
export type DemoMessage = z.infer<typeof DemoMessageSchema>;

export const DemoRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(DemoMessageSchema).min(1, "messages must contain at least one message"),
  tools: z
    .array(
      z.object({
        type: z.literal("function"),
        function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
      }),
    )
    .optional(),
  tool_choice: z.union([z.enum(["auto", "none", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })]).optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().min(1).max(128).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
});
export type DemoRequest = z.infer<typeof DemoRequestSchema>;

/** A message's text, whether its content is a string or an array of parts. */
export function messageText(message: DemoMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? "").join("");
  return "";
}
