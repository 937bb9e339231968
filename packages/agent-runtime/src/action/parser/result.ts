import { z } from "zod";

export const PARSE_ERROR_CODES = [
  "TRUNCATED",
  "MALFORMED_XML",
  "UNKNOWN_TOOL",
  "INVALID_PARAMS",
  "MULTIPLE_TOOLS",
  "EMPTY_ACTION",
  /** A reply whose only `<ACTION>` was quoted (code block, inline code, reasoning, comment): not run. */
  "QUOTED_ACTION",
  /** A call written as text the protocol does not run: JSON instead of `<ACTION>`, or `<ACTION>` for a native agent. */
  "CALL_AS_TEXT",
] as const;
export const ParseErrorCodeSchema = z.enum(PARSE_ERROR_CODES);
export type ParseErrorCode = z.infer<typeof ParseErrorCodeSchema>;

/** An `<ACTION>` tag read as a quoted example, not run: where it sat, and its line (1-based). */
export const QuotedActionSchema = z.object({ where: z.enum(["code-block", "inline-code", "reasoning", "comment"]), line: z.number().int() });
export type QuotedAction = z.infer<typeof QuotedActionSchema>;

/** No action: the whole output is a reply. `notes` say what was seen but deliberately not executed. */
export const TextResultSchema = z.object({
  kind: z.literal("text"),
  /** The reply, without reasoning (`<think>`) blocks. */
  responseText: z.string(),
  notes: z.array(z.string()),
  /** `<ACTION>` tags read as quoted examples (and so not run), in text order. */
  quoted: z.array(QuotedActionSchema),
});

/** A validated call, ready to run. */
export const CallResultSchema = z.object({
  kind: z.literal("call"),
  /** The text before the `<ACTION>` block (reasoning blocks removed). */
  responseText: z.string(),
  /** The text after `</ACTION>`: not part of the reply (seed 004 §3.1.1), kept for the log. */
  trailingText: z.string(),
  /** Where the `<ACTION>` block ends in the output: the turn is the text up to here. */
  actionEnd: z.number().int().optional(),
  /** The manifest id: node type or workflow id. */
  toolId: z.string(),
  toolKind: z.enum(["tool", "skill"]),
  /** The manifest's LLM-safe name. */
  toolName: z.string(),
  params: z.record(z.string(), z.unknown()),
  /** Repairs made to accept the call, to be shown to the model. */
  notes: z.array(z.string()),
});

/** Nothing runs; `message` is the Observation text the model gets to correct itself. */
export const ErrorResultSchema = z.object({
  kind: z.literal("error"),
  responseText: z.string(),
  trailingText: z.string(),
  actionEnd: z.number().int().optional(),
  code: ParseErrorCodeSchema,
  message: z.string(),
  /** The tool the failed call was aimed at, when it could be identified. */
  toolId: z.string().optional(),
  /** Where in the raw output the problem is (1-based), when known. */
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});

export const ParseResultSchema = z.discriminatedUnion("kind", [TextResultSchema, CallResultSchema, ErrorResultSchema]);
export type TextResult = z.infer<typeof TextResultSchema>;
export type CallResult = z.infer<typeof CallResultSchema>;
export type ErrorResult = z.infer<typeof ErrorResultSchema>;
export type ParseResult = z.infer<typeof ParseResultSchema>;
