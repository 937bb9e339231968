import { z } from "zod";

/** The states of an A2A task as the `a2a.call` tool reports them (A2A's names, lower case as in A2A 0.3's JSON). */
export const A2A_TASK_STATES = ["submitted", "working", "input-required", "completed", "canceled", "failed", "rejected", "auth-required", "unknown"] as const;
export const A2aTaskStateSchema = z.enum(A2A_TASK_STATES);
export type A2aTaskState = z.infer<typeof A2aTaskStateSchema>;

/** What the `a2a.call` tool (and the `a2a:call` node) gives when the remote agent answered. */
export const A2aCallOkSchema = z.object({
  ok: z.literal(true),
  /** The agent's answer: its final message's text parts (data parts as JSON), or the task's artifacts' when it sent none. */
  text: z.string(),
  /** The remote task's id, or "" when the agent answered with a message and no task. */
  taskId: z.string(),
  /** The remote conversation: send it as `contextId` to continue it. */
  contextId: z.string(),
  state: A2aTaskStateSchema,
  /** The remote agent's name, from its card. */
  agent: z.string(),
  durationMs: z.number(),
});
export type A2aCallOk = z.infer<typeof A2aCallOkSchema>;
