import type { Workflow } from "@weft/types";

/** Workflows deep-frozen by `freezeWorkflow`: nothing in them can change, so the engine may keep their compiled graph. */
const frozen = new WeakSet<Workflow>();

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * Freezes the workflow and everything in it, for a caller that runs one workflow many times (an
 * agent's deliberation runs it every step): the engine compiles a frozen workflow's graph once and
 * reuses it while the catalog's node types stay the same. Writing to it afterwards throws.
 */
export function freezeWorkflow<W extends Workflow>(workflow: W): W {
  deepFreeze(workflow);
  frozen.add(workflow);
  return workflow;
}

/** Whether `freezeWorkflow` froze this very object. */
export function isFrozenWorkflow(workflow: Workflow): boolean {
  return frozen.has(workflow);
}
