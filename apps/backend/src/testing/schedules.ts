import { z } from "zod";
import type { ScheduleConfig, WorkflowInput } from "@weft/types";

/** schedule (trigger:schedule) → output `tick` (the tick's scheduled time): one node between the tick and the run's output. */
export function scheduleWorkflow(id: string, config: Partial<ScheduleConfig> & { cron: string }): WorkflowInput {
  return {
    id,
    name: `Schedule ${id}`,
    nodes: [
      { id: "clock", type: "trigger:schedule", position: { x: 0, y: 0 }, config },
      { id: "out", type: "core:workflow-output", position: { x: 300, y: 0 }, config: { name: "tick", portType: "string" } },
    ],
    edges: [{ id: "e1", source: "clock", sourceHandle: "scheduledFor", target: "out", targetHandle: "value" }],
  };
}

/** A run as `GET /api/runs` lists it, with what started it. */
export const ScheduledRunsSchema = z.object({
  runs: z.array(
    z.object({
      id: z.string(),
      status: z.string(),
      trigger: z.object({ kind: z.string(), nodeId: z.string(), scheduledFor: z.number().optional(), at: z.number() }).optional(),
    }),
  ),
});
export type ScheduledRun = z.infer<typeof ScheduledRunsSchema>["runs"][number];

type Caller = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** The stored runs of `workflowId` (up to 500, newest first). */
export async function scheduledRuns(call: Caller, workflowId: string): Promise<ScheduledRun[]> {
  return ScheduledRunsSchema.parse((await call("GET", `/api/runs?workflowId=${encodeURIComponent(workflowId)}&limit=500`)).body).runs;
}
