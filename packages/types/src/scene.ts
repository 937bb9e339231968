import { z } from "zod";

export const SceneTriggerSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("event"), topic: z.string(), instanceIds: z.array(z.string()).optional() }),
  z.object({ kind: z.literal("timer"), everyMs: z.number().int().positive(), instanceIds: z.array(z.string()).optional(), message: z.string().default("tick") }),
]);
export type SceneTrigger = z.infer<typeof SceneTriggerSchema>;

export const SceneSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(""),
  agents: z.array(z.object({ instanceId: z.string().min(1), profileId: z.string().min(1), initialPrivateState: z.record(z.string(), z.unknown()).optional() })),
  initialWorldState: z.record(z.string(), z.unknown()).default({}),
  triggers: z.array(SceneTriggerSchema).default([]),
  stepBudget: z.number().int().positive().default(100),
  revision: z.number().int().min(0).default(0),
});
export type Scene = z.infer<typeof SceneSchema>;
