import { jsonEqual, AgentProfileSchema, SceneSchema, WorkflowSchema } from "@weft/types";
import type { z } from "zod";
import type { OverlayEntry } from "../domain/change-set.ts";
import { findings, type Findings, type ValidationContext } from "./findings.ts";

function schemaOf(entry: Exclude<OverlayEntry, { type: "asset" }>): z.ZodType {
  switch (entry.type) {
    case "workflow":
      return WorkflowSchema;
    case "agent":
      return AgentProfileSchema;
    case "scene":
      return SceneSchema;
    default: {
      const never: never = entry;
      return never;
    }
  }
}

/** Stage 1 (seed 001 §8): each object of the change has a valid shape and its id; a change that changes nothing is worth a warning. */
export async function shapeStage(ctx: ValidationContext): Promise<Findings> {
  const out = findings();
  if (ctx.entries.length === 0) {
    out.errors.push({ code: "AI_CHANGESET_EMPTY", stage: "shape", message: "the change set changes nothing", hint: "stage at least one operation with builder_change_stage" });
    return out;
  }
  for (const entry of ctx.entries) {
    const where = { objectType: entry.type, objectKey: entry.key };
    if (entry.type === "asset") {
      const stored = await ctx.view.assets.state(entry.key);
      const same = entry.value === null ? stored.kind === "missing" : stored.kind === "file" && stored.content === entry.value;
      if (same) out.warnings.push({ code: "AI_NO_EFFECTIVE_CHANGE", stage: "shape", message: `asset ${entry.key} is staged unchanged`, hint: "leave it out of the change set", ...where });
      continue;
    }
    if (entry.value === null) continue;
    const parsed = schemaOf(entry).safeParse(entry.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        out.errors.push({
          code: "AI_SHAPE_INVALID",
          stage: "shape",
          message: issue.message,
          hint: `correct ${issue.path.join(".") || "the document"} and stage it again`,
          path: issue.path.join("."),
          ...where,
        });
      }
      continue;
    }
    if (entry.value.id !== entry.key) {
      out.errors.push({
        code: "AI_SHAPE_INVALID",
        stage: "shape",
        message: `the document's id "${entry.value.id}" differs from "${entry.key}"`,
        hint: "keep the id; to rename, stage a new document and delete the old one",
        path: "id",
        ...where,
      });
    }
    const stored = await ctx.view.repository(entry.type).get(entry.key);
    if (stored && jsonEqual({ ...stored.document, revision: 0 }, { ...entry.value, revision: 0 })) {
      out.warnings.push({ code: "AI_NO_EFFECTIVE_CHANGE", stage: "shape", message: `${entry.type} "${entry.key}" is staged unchanged`, hint: "leave it out of the change set", ...where });
    }
  }
  return out;
}
