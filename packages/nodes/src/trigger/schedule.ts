import { NodeFailure, SCHEDULE_CATCH_UP_POLICIES, SCHEDULE_TRIGGER_TYPE } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { checkSchedule } from "./schedule-cron.ts";

/**
 * Starts its workflow at each tick of a cron expression (once the workflow is switched active). The server pins the
 * tick's time and the actual fire time as this node's outputs; run by hand, both are now.
 */
export const scheduleTrigger = defineNode(
  {
    type: SCHEDULE_TRIGGER_TYPE,
    title: "Schedule trigger",
    description:
      "Starts the workflow at each tick of a cron expression read in a time zone, once per tick however many Weft processes run. Outputs the tick's scheduled time and the time it actually fired (ISO 8601). The workflow must be switched active (Triggers).",
    category: "trigger",
    inputs: [],
    outputs: [
      { id: "scheduledFor", type: "string", label: "Scheduled for", description: "The tick this run is for (ISO 8601, UTC)." },
      { id: "firedAt", type: "string", label: "Fired at", description: "When the run actually started (ISO 8601, UTC): later than the tick after downtime." },
    ],
    config: [
      {
        id: "cron",
        kind: "text",
        required: true,
        label: "Cron expression",
        description: "Five fields (minute hour day month weekday), six with seconds first, or @hourly / @daily / @weekly, e.g. `0 9 * * 1-5`. At most one tick per second.",
      },
      { id: "timezone", kind: "text", default: "UTC", label: "Time zone", description: "The IANA time zone the expression is read in, e.g. `Europe/Berlin`." },
      {
        id: "catchUp",
        kind: "select",
        options: [...SCHEDULE_CATCH_UP_POLICIES],
        default: "last",
        label: "Catch-up after downtime",
        description: "last: the latest missed tick once; none: skip missed ticks; all: each missed tick, at most the max below.",
      },
      { id: "maxCatchUp", kind: "integer", min: 1, max: 100, default: 10, label: "Max missed ticks (all)", description: "Catch-up `all`: how many of the latest missed ticks are fired." },
    ],
  },
  (_inputs, ctx) => {
    const checked = checkSchedule(ctx.config);
    if (!checked.ok) throw new NodeFailure("INVALID_CONFIG", `trigger:schedule: ${checked.problem.message}.`);
    const now = new Date().toISOString();
    return { scheduledFor: now, firedAt: now };
  },
);
