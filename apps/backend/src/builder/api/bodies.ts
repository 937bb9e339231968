import { z } from "zod";
import { BuilderModeSchema, BuilderObjectTypeSchema, BuilderTargetSchema, SessionScopeSchema, SessionStatusSchema } from "@weft/types";
import { RevisionBaseInputSchema } from "../apply/apply-orchestrator.ts";

const Text = z.string().trim().min(1).max(20_000);

export const CreateSessionBody = z
  .object({
    target: BuilderTargetSchema,
    mode: BuilderModeSchema.default("optimize"),
    llmProfileId: z.string().min(1).optional(),
    scope: SessionScopeSchema.default({ extra: [] }),
    maxRepairRounds: z.number().int().min(0).max(2).default(2),
    /** The first message (seed 001 §5.2 `userPrompt`): answered before the session is returned. */
    message: Text.optional(),
  })
  .strict();

export const MessageBody = z.object({ content: Text }).strict();

export const ApplyBody = z
  .object({
    changeSetId: z.string().min(1),
    confirmSource: z.string(),
    revisionBase: RevisionBaseInputSchema.optional(),
    confirmStale: z.boolean().default(false),
  })
  .strict();

export const ListQuery = z
  .object({
    targetType: BuilderObjectTypeSchema.optional(),
    targetId: z.string().min(1).optional(),
    status: SessionStatusSchema.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();

export const AuditQuery = z.object({ after: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(200) }).strict();

/** How many of the latest conversation-pane entries a session read returns. */
export const SessionQuery = z.object({ messages: z.coerce.number().int().min(0).max(5000).default(200) }).strict();
