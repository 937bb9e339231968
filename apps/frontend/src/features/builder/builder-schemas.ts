import { z } from "zod";

/**
 * What the Builder workbench reads from other APIs for its pickers, only the fields it shows.
 * The Builder AI's own answers (docs/api.md "Builder AI") are checked with the schemas of @weft/types.
 */

/** Agent profiles and scenes, as the target picker lists them. */
const NamedSchema = z.object({ id: z.string(), name: z.string() });
export type Named = z.infer<typeof NamedSchema>;
export const AgentNamesSchema = z.object({ agents: z.array(NamedSchema) });
export const SceneNamesSchema = z.object({ scenes: z.array(NamedSchema) });
