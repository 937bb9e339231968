import type { ValidationReport, ValidationStage } from "@weft/types";
import { boundaryStage } from "./boundary-stage.ts";
import type { Findings, ValidationContext } from "./findings.ts";
import { graphStage } from "./graph-stage.ts";
import { pathStage } from "./path-stage.ts";
import { referenceStage } from "./reference-stage.ts";
import { shapeStage } from "./shape-stage.ts";

const STAGES: ReadonlyArray<readonly [ValidationStage, (ctx: ValidationContext) => Promise<Findings>]> = [
  ["shape", shapeStage],
  ["graph", graphStage],
  ["references", referenceStage],
  ["boundary", boundaryStage],
  ["path", pathStage],
];

/**
 * The validation pipeline (seed 001 §8) over a change set's effective view: shape, Weft graph
 * rules, reference integrity, impact boundary, path safety. Every stage runs, so one report names
 * every problem; the revision comparison is apply's (warnings only).
 */
export async function validateChange(ctx: ValidationContext): Promise<ValidationReport> {
  const errors: ValidationReport["errors"] = [];
  const warnings: ValidationReport["warnings"] = [];
  const stages: ValidationReport["stages"] = [];
  for (const [stage, run] of STAGES) {
    const found = await run(ctx);
    errors.push(...found.errors);
    warnings.push(...found.warnings);
    stages.push({ stage, errors: found.errors.length, warnings: found.warnings.length });
  }
  const valid = errors.length === 0;
  return { valid, errors, warnings, stages, checkedAt: Date.now(), meta: { allowWrite: valid } };
}
