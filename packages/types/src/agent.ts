import { z } from "zod";

export const AgentProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  persona: z.string().default(""),
  deliberationWorkflowId: z.string().min(1),
  /** Node types the agent may call as atomic tools. */
  tools: z.array(z.string()).default([]),
  /** Workflow ids the agent may call as skills. */
  skills: z.array(z.string()).default([]),
  protocol: z.enum(["action-xml", "openai-tools"]).default("action-xml"),
  maxSteps: z.number().int().positive().max(200).default(8),
  subscribedEvents: z.array(z.string()).default([]),
  initialPrivateState: z.record(z.string(), z.unknown()).default({}),
  llmProfileId: z.string().optional(),
  revision: z.number().int().min(0).default(0),
});
export type AgentProfile = z.infer<typeof AgentProfileSchema>;
export type AgentProfileInput = z.input<typeof AgentProfileSchema>;
