import { z } from "zod";

/** Seed 000 §6.1 error codes for file and shell tools. */
export const TOOL_ERROR_CODES = [
  "ENOENT",
  "E_SANDBOX_VIOLATION",
  "E_READ_LIMIT",
  "E_WRITE_LIMIT",
  "E_INVALID_FRONTMATTER",
  "E_SCHEMA_VALIDATION",
  "E_INVALID_TRANSITION",
  "E_PRECONDITION_FAILED",
  "E_INTERNAL",
] as const;

export const ToolErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

export type ToolResult = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolError };

export interface ToolCallContext {
  runId?: string;
  agentId?: string;
  signal?: AbortSignal;
}

/** The sandboxed file and shell tools as nodes see them (implemented in agent-runtime/toolhost). */
export interface ToolHostService {
  call(tool: string, args: Record<string, unknown>, ctx?: ToolCallContext): Promise<ToolResult>;
}
