import { z } from "zod";
import { TopicPatternSchema } from "./scene.ts";

/**
 * Scene suites: a scene's trigger script run over N seeds or variations of its world, with invariants checked over the
 * world state and the event bus at every step (docs/api.md "Scene suites"). A step is one world change or one published
 * event of the session log, numbered from 1 (step 0 is the world before the first trigger).
 */

const InvariantName = z.string().min(1).max(200).optional().describe("shown in the report; a description of the check when absent");
const WorldPath = z
  .string()
  .min(1, "a world path is keys joined by dots, array indexes in brackets (e.g. `stock` or `orders[0].qty`)")
  .max(500)
  .describe("where in the world state: keys joined by dots, array indexes in brackets");
const Missing = z.boolean().optional().describe("true: a step where the path holds nothing passes; otherwise it breaks the invariant");

function validPattern(pattern: string, flags: string | undefined): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export const SceneInvariantSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("state"),
      name: InvariantName,
      path: WorldPath,
      op: z.enum(["gte", "lte", "eq", "ne"]).describe("gte ≥, lte ≤, eq =, ne ≠ (eq and ne compare JSON values)"),
      value: z.unknown(),
      optional: Missing,
    })
    .strict()
    .superRefine((inv, ctx) => {
      if (inv.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: `"${inv.op}" needs a value to compare with, e.g. "value": 0` });
      else if ((inv.op === "gte" || inv.op === "lte") && typeof inv.value !== "number")
        ctx.addIssue({ code: "custom", path: ["value"], message: `"${inv.op}" compares numbers; give a number as value (e.g. 0), not ${JSON.stringify(inv.value)}` });
    }),
  z
    .object({
      kind: z.literal("state-regex"),
      name: InvariantName,
      path: WorldPath,
      pattern: z.string().min(1).max(1_000),
      flags: z
        .string()
        .regex(/^[imsu]*$/, "flags may be i, m, s and u")
        .optional(),
      optional: Missing,
    })
    .strict()
    .superRefine((inv, ctx) => {
      const problem = validPattern(inv.pattern, inv.flags);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["pattern"], message: `not a valid regular expression (${problem}); escape special characters such as ( [ + with a backslash` });
    }),
  z
    .object({ kind: z.literal("state-schema"), name: InvariantName, path: WorldPath, schema: z.record(z.string(), z.unknown()).describe("a JSON Schema the value must satisfy"), optional: Missing })
    .strict(),
  z
    .object({
      kind: z.literal("followed-by"),
      name: InvariantName,
      event: TopicPatternSchema.describe("every event of this topic (pattern)…"),
      by: TopicPatternSchema.describe("…is followed by an event of this topic (pattern)"),
      within: z.number().int().min(1, "within counts steps after the event: at least 1").max(10_000).describe("at most this many steps later"),
    })
    .strict(),
  z.object({ kind: z.literal("never"), name: InvariantName, event: TopicPatternSchema.describe("no event of this topic (pattern) is published") }).strict(),
  z
    .object({ kind: z.literal("at-most"), name: InvariantName, event: TopicPatternSchema, times: z.number().int().min(0).max(1_000_000).describe("how many events of this topic may be published") })
    .strict(),
]);
export type SceneInvariant = z.infer<typeof SceneInvariantSchema>;
export type SceneInvariantKind = SceneInvariant["kind"];

/** World-state overrides: path → value, set over the scene's initial world before its first trigger. */
export const WorldOverridesSchema = z.record(WorldPath, z.unknown());

export const SceneVariationSchema = z
  .object({
    name: z.string().min(1).max(200),
    world: WorldOverridesSchema.default({}),
  })
  .strict();
export type SceneVariation = z.infer<typeof SceneVariationSchema>;

export const SceneScriptMessageSchema = z.object({ to: z.string().min(1).default("all"), text: z.string().trim().min(1, "a message needs some text").max(100_000) }).strict();
export type SceneScriptMessage = z.infer<typeof SceneScriptMessageSchema>;

export const MAX_SCENE_CASE_RUNS = 100;

export const SceneCaseSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1–64 letters, digits, _ or -"),
    name: z.string().min(1).max(200),
    /** The user messages sent one after another (each once the scene has settled); the scene's recorded ones when absent. */
    script: z.array(SceneScriptMessageSchema).min(1).max(100).optional(),
    /** N runs, run i with the world path `seedPath` set to i (1…N) on top of `world`. */
    seeds: z.number().int().min(1).max(MAX_SCENE_CASE_RUNS).optional(),
    seedPath: WorldPath.default("seed"),
    /** Runs with these world overrides each (on top of `world`). */
    variations: z.array(SceneVariationSchema).min(1).max(MAX_SCENE_CASE_RUNS).optional(),
    /** Overrides every run of the case starts with. */
    world: WorldOverridesSchema.default({}),
    invariants: z.array(SceneInvariantSchema).min(1, "a scene case needs at least one invariant").max(50),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.seeds !== undefined && c.variations !== undefined)
      ctx.addIssue({ code: "custom", path: ["variations"], message: "give either seeds (N runs) or variations (a list of world overrides), not both" });
  });
export type SceneCase = z.infer<typeof SceneCaseSchema>;
export type SceneCaseInput = z.input<typeof SceneCaseSchema>;

export const SceneSuiteInputSchema = z
  .object({ name: z.string().min(1).max(200), sceneId: z.string().min(1), cases: z.array(SceneCaseSchema).max(100) })
  .strict()
  .superRefine((suite, ctx) => {
    const seen = new Set<string>();
    suite.cases.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: "custom", path: ["cases", i, "id"], message: `case id "${c.id}" is used twice; each case needs its own id` });
      seen.add(c.id);
    });
  });
export type SceneSuiteInput = z.infer<typeof SceneSuiteInputSchema>;

export const SceneSuiteSchema = z.object({
  id: z.string(),
  name: z.string(),
  sceneId: z.string(),
  cases: z.array(SceneCaseSchema),
  createdBy: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type SceneSuite = z.infer<typeof SceneSuiteSchema>;

/** Where an invariant first broke in one run. */
export const SceneInvariantBreakSchema = z.object({
  invariant: z.number().int().describe("index of the invariant in its case"),
  name: z.string(),
  /** The step (0: the world before the first trigger) and its session-log seq (absent for step 0). */
  step: z.number().int().nonnegative(),
  seq: z.number().int().nonnegative().optional(),
  message: z.string(),
  /** The value at the path at that step (state invariants), or the events that count (event invariants). */
  value: z.unknown().optional(),
  /** The editor's link to the scene's timeline at that step. */
  link: z.string(),
});
export type SceneInvariantBreak = z.infer<typeof SceneInvariantBreakSchema>;

export const SceneVariationResultSchema = z.object({
  caseId: z.string(),
  caseName: z.string(),
  variation: z.string(),
  world: z.record(z.string(), z.unknown()),
  pass: z.boolean(),
  /** The scene run of this variation: a stored scene (a copy of the suite's), replayable and opened from `link`. */
  sceneId: z.string().optional(),
  steps: z.number().int().nonnegative(),
  error: z.string().optional(),
  durationMs: z.number(),
  /** Each broken invariant at its first broken step, earliest first. */
  broken: z.array(SceneInvariantBreakSchema),
});
export type SceneVariationResult = z.infer<typeof SceneVariationResultSchema>;

export const SceneSuiteRunSchema = z.object({
  id: z.string(),
  suiteId: z.string(),
  suiteName: z.string(),
  sceneId: z.string(),
  status: z.enum(["running", "completed", "failed"]),
  error: z.string().optional(),
  /** Scene runs in all (cases × variations) and finished so far. */
  total: z.number().int(),
  done: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  results: z.array(SceneVariationResultSchema),
  createdBy: z.string().optional(),
  createdAt: z.number(),
  finishedAt: z.number().optional(),
});
export type SceneSuiteRun = z.infer<typeof SceneSuiteRunSchema>;

/** The editor's link to a scene's timeline at a session-log entry (`seq`). */
export function sceneTimelineLink(sceneId: string, seq: number | undefined): string {
  return `/#/scenes/${encodeURIComponent(sceneId)}${seq !== undefined ? `?seq=${seq}` : ""}`;
}
