import { z } from "zod";

/** Eval suites: cases with assertions, run against a skill's version or an LLM profile (docs/api.md "Evals"). */

/** Where an assertion reads its actual value: a workflow output by name, or the whole outputs object when absent. */
const OutputField = z.string().min(1).max(200).optional().describe("the workflow output to check; absent: all outputs as one object");

export const EvalAssertionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("equals"), output: OutputField, expected: z.unknown() }).strict(),
  z.object({ kind: z.literal("contains"), output: OutputField, text: z.string().min(1).max(10_000), caseSensitive: z.boolean().optional() }).strict(),
  z
    .object({
      kind: z.literal("regex"),
      output: OutputField,
      pattern: z.string().min(1).max(1_000),
      flags: z
        .string()
        .regex(/^[imsu]*$/, "flags may be i, m, s and u")
        .optional(),
    })
    .strict(),
  z.object({ kind: z.literal("json-schema"), output: OutputField, schema: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ kind: z.literal("number"), output: OutputField, expected: z.number(), tolerance: z.number().nonnegative() }).strict(),
  z.object({ kind: z.literal("steps"), max: z.number().int().positive().describe("at most this many node executions") }).strict(),
  z.object({ kind: z.literal("cost"), maxTokens: z.number().int().nonnegative().optional(), maxCostUsd: z.number().nonnegative().optional() }).strict(),
  z
    .object({
      kind: z.literal("judge"),
      output: OutputField,
      rubric: z.string().min(1).max(10_000).describe('what a good answer does; the demo LLM passes an answer that contains every "double-quoted" phrase'),
      profileId: z.string().min(1).optional().describe("the LLM profile that judges; the default profile when absent"),
    })
    .strict(),
]);
export type EvalAssertion = z.infer<typeof EvalAssertionSchema>;
export type EvalAssertionKind = EvalAssertion["kind"];

export const MAX_EVAL_CASES = 1_000;

export const EvalCaseSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1–64 letters, digits, _ or -"),
    name: z.string().min(1).max(200),
    inputs: z.record(z.string(), z.unknown()).describe("the workflow inputs of this case"),
    assertions: z.array(EvalAssertionSchema).min(1, "a case needs at least one assertion").max(50),
  })
  .strict();
export type EvalCase = z.infer<typeof EvalCaseSchema>;

/**
 * An agent suite's assertions (issue 33 item 4): the skill assertions over the agent's final answer (`output` absent or
 * "answer"; "status" is the agent's status), and whether a tool was or was not called in the case's conversation.
 */
const ToolName = z.string().min(1).max(200).describe('the tool\'s node type or skill workflow id (e.g. "fs:write"), or the name the model used ("fs_write")');
export const AgentEvalAssertionSchema = z.discriminatedUnion("kind", [
  ...EvalAssertionSchema.options,
  z
    .object({
      kind: z.literal("tool-called"),
      tool: ToolName,
      args: z.record(z.string(), z.unknown()).optional().describe("each of these arguments must equal the call's (others may be there too)"),
    })
    .strict(),
  z.object({ kind: z.literal("tool-not-called"), tool: ToolName }).strict(),
]);
export type AgentEvalAssertion = z.infer<typeof AgentEvalAssertionSchema>;

/** A case of an agent's suite: a user message, or a short conversation of user messages, each sent once the agent has answered the one before. */
export const AgentEvalCaseSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1–64 letters, digits, _ or -"),
    name: z.string().min(1).max(200),
    messages: z.array(z.string().min(1).max(100_000)).min(1, "a case needs at least one user message").max(20),
    assertions: z.array(AgentEvalAssertionSchema).min(1, "a case needs at least one assertion").max(50),
  })
  .strict();
export type AgentEvalCase = z.infer<typeof AgentEvalCaseSchema>;

/** A suite's case: a skill's (inputs) or an agent's (messages). */
export type EvalSuiteCase = EvalCase | AgentEvalCase;
export const isAgentCase = (c: EvalSuiteCase): c is AgentEvalCase => "messages" in c;

/** What a suite belongs to: a skill (workflow) or an agent (profile). */
export const EvalTargetSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("workflow"), id: z.string().min(1) }).strict(),
  z.object({ kind: z.literal("agent"), id: z.string().min(1) }).strict(),
]);
export type EvalTarget = z.infer<typeof EvalTargetSchema>;

/** A suite's cases: a skill suite's have inputs, an agent suite's have messages (the suite's refinement says which fits). */
const SuiteCaseSchema = z.union([EvalCaseSchema, AgentEvalCaseSchema], {
  error: "a case is a skill's { id, name, inputs, assertions } or an agent's { id, name, messages (1–20 strings), assertions (1–50) }; check each field against GET /api/openapi.json",
});

/** A suite as written: POST /api/evals/suites and PUT /api/evals/suites/:id. */
export const EvalSuiteInputSchema = z
  .object({
    name: z.string().min(1).max(200),
    target: EvalTargetSchema,
    cases: z.array(SuiteCaseSchema).max(MAX_EVAL_CASES),
  })
  .strict()
  .superRefine((suite, ctx) => {
    const seen = new Set<string>();
    suite.cases.forEach((c, i) => {
      if (isAgentCase(c) !== (suite.target.kind === "agent")) {
        const [has, needs] = isAgentCase(c) ? ["messages", "inputs"] : ["inputs", "messages"];
        ctx.addIssue({ code: "custom", path: ["cases", i], message: `case "${c.id}" has ${has}, but ${suite.target.kind === "agent" ? "an agent" : "a skill"} suite's case has ${needs}` });
      }
      if (seen.has(c.id)) ctx.addIssue({ code: "custom", path: ["cases", i, "id"], message: `case id "${c.id}" is used twice; each case needs its own id` });
      seen.add(c.id);
    });
  });
export type EvalSuiteInput = z.infer<typeof EvalSuiteInputSchema>;

export const EvalSuiteSchema = z.object({
  id: z.string(),
  name: z.string(),
  target: EvalTargetSchema,
  cases: z.array(SuiteCaseSchema),
  createdBy: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type EvalSuite = z.infer<typeof EvalSuiteSchema>;

/** What one side of an eval run runs: a saved version of the skill or agent profile (the latest when absent) and/or an LLM profile for its LLM nodes (the agent's LLM). */
export const EvalSideSchema = z
  .object({
    version: z.number().int().min(1).optional(),
    profileId: z.string().min(1).optional().describe("every LLM node of the skill uses this profile"),
  })
  .strict();
export type EvalSide = z.infer<typeof EvalSideSchema>;

export const EvalRunRequestSchema = z
  .object({
    against: EvalSideSchema.optional(),
    /** A second side: each case runs on both, and the results are shown side by side. */
    compare: EvalSideSchema.optional(),
    concurrency: z.number().int().min(1).max(32).optional(),
  })
  .strict();
export type EvalRunRequest = z.infer<typeof EvalRunRequestSchema>;

export const EvalAssertionResultSchema = z.object({
  kind: z.string(),
  pass: z.boolean(),
  /** What was expected and what came, as the assertion reads them (for a diff). */
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
  message: z.string(),
});
export type EvalAssertionResult = z.infer<typeof EvalAssertionResultSchema>;

export const EvalCaseResultSchema = z.object({
  caseId: z.string(),
  name: z.string(),
  pass: z.boolean(),
  runId: z.string().optional(),
  /** An agent case's conversation (open it in the chat). */
  conversationId: z.string().optional(),
  runStatus: z.string(),
  outputs: z.unknown().optional(),
  error: z.string().optional(),
  durationMs: z.number(),
  tokens: z.number(),
  costUsd: z.number().nullable(),
  assertions: z.array(EvalAssertionResultSchema),
});
export type EvalCaseResult = z.infer<typeof EvalCaseResultSchema>;

export const EvalSideResultSchema = z.object({
  side: EvalSideSchema.extend({ version: z.number().int().optional() }),
  passed: z.number().int(),
  failed: z.number().int(),
  passRate: z.number().describe("passed / cases, 0–1"),
  results: z.array(EvalCaseResultSchema),
});
export type EvalSideResult = z.infer<typeof EvalSideResultSchema>;

export const EVAL_RUN_STATUSES = ["running", "completed", "failed"] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

export const EvalRunSchema = z.object({
  id: z.string(),
  suiteId: z.string(),
  suiteName: z.string(),
  status: z.enum(EVAL_RUN_STATUSES),
  error: z.string().optional(),
  cases: z.number().int(),
  /** Case runs finished so far over all sides. */
  done: z.number().int(),
  sides: z.array(EvalSideResultSchema),
  createdBy: z.string().optional(),
  createdAt: z.number(),
  finishedAt: z.number().optional(),
});
export type EvalRun = z.infer<typeof EvalRunSchema>;

/** The system prompt of an LLM judge call; the demo LLM recognises it and judges deterministically. */
export const EVAL_JUDGE_HEADER = "You are Weft's eval judge.";

/** The judge's answer: JSON with a verdict and a reason. */
export const EvalVerdictSchema = z.object({ pass: z.boolean(), reason: z.string() });
export type EvalVerdict = z.infer<typeof EvalVerdictSchema>;

/** The messages of a judge call: the rubric in the system prompt, the answer as the user's message. */
export function judgeMessages(rubric: string, answer: string): Array<{ role: "system" | "user"; content: string }> {
  return [
    { role: "system", content: `${EVAL_JUDGE_HEADER} Decide whether the answer below meets the rubric.\nRubric:\n${rubric}\nReply with JSON only: an object with a boolean pass and a string reason.` },
    { role: "user", content: answer },
  ];
}
