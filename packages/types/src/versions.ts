import { z } from "zod";
import { GraphDiffSchema, JsonChangeSchema } from "./builder-preview.ts";

/** Version history of workflows, agent profiles and scenes, as the HTTP API answers it (docs/api.md "Versions"). */

/** The user who saved a version (their account id and login name); null for saves no user made (examples, older records). */
export const VersionAuthorSchema = z.object({ id: z.string(), name: z.string() });
export type VersionAuthor = z.infer<typeof VersionAuthorSchema>;

/** A save's longest message. */
export const MAX_VERSION_MESSAGE_CHARS = 500;

/** One immutable version of a document: its number (1, 2, … per document), who saved it, when, and why. */
export const DocumentVersionSchema = z.object({
  number: z.number().int().min(1),
  savedAt: z.number().describe("milliseconds since the epoch"),
  savedBy: VersionAuthorSchema.nullable(),
  message: z.string().optional(),
  /** SHA-256 of the content (keys sorted, `revision` left out): equal hashes, equal content. */
  hash: z.string(),
});
export type DocumentVersion = z.infer<typeof DocumentVersionSchema>;

/** One version with its content: the document as that save stored it, without `revision`. */
export const VersionContentSchema = z.object({ version: DocumentVersionSchema, content: z.record(z.string(), z.unknown()) });
export type VersionContent = z.infer<typeof VersionContentSchema>;

/** A page of versions, newest first; `nextBefore` asks for the next (older) page. */
export const VersionPageSchema = z.object({
  versions: z.array(DocumentVersionSchema),
  /** The number the document's latest version has (0: none yet). */
  latest: z.number().int().min(0),
  nextBefore: z.number().int().optional(),
});
export type VersionPage = z.infer<typeof VersionPageSchema>;

/** The difference from version `from` to version `to`: field by field, and for workflows node by node and edge by edge. */
export const VersionDiffSchema = z.object({
  from: z.number().int(),
  to: z.number().int(),
  changes: z.array(JsonChangeSchema),
  graph: GraphDiffSchema.optional(),
});
export type VersionDiff = z.infer<typeof VersionDiffSchema>;

/** What a save may say about itself (`message` beside the document in a create, update or restore body). */
export const SaveMessageSchema = z.string().trim().max(MAX_VERSION_MESSAGE_CHARS);
