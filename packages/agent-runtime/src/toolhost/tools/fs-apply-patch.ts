import { z } from "zod";
import { FrontmatterUpdateSchema, type FsApplyPatchOk } from "@weft/types";
import { mutateFile } from "../fs/mutate-file.ts";
import { decodeText } from "../fs/text.ts";
import { updateFrontmatter } from "../patch/frontmatter.ts";
import { applySearchReplace, isSearchReplace } from "../patch/search-replace.ts";
import { applyUnifiedDiff } from "../patch/unified-diff.ts";
import { defineTool } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";
import { Sha256Schema } from "./fs-write.ts";

export const FsApplyPatchArgsSchema = z
  .object({
    path: z.string().describe("File to change, as a mount path in @project/ or @state/"),
    patch: z
      .string()
      .min(1)
      .optional()
      .describe("A unified diff of this one file (`@@ -a,b +c,d @@` hunks), or search/replace blocks: `<<<<<<< SEARCH`, the exact old lines, `=======`, the new lines, `>>>>>>> REPLACE`"),
    operation: z.literal("updateFrontmatter").optional().describe("Instead of a patch: update the Markdown document's YAML frontmatter with `update`"),
    update: FrontmatterUpdateSchema.optional().describe(
      "For updateFrontmatter: { stepsCompleted: {append: [..]}, variables: {set: {..}}, decisionLog: {append: [{..}]}, artifacts: {append: [..]}, currentNodeId: {set: ..}, updatedAt: {set: ISO time} }",
    ),
    ifMatchSha256: Sha256Schema.optional().describe("Only change the file if its current content has this SHA-256 (from fs.read)"),
  })
  .strict()
  .superRefine((args, ctx) => {
    if ((args.patch === undefined) === (args.operation === undefined)) {
      ctx.addIssue({ code: "custom", message: 'give either `patch` or `operation: "updateFrontmatter"` with `update`, not both or neither' });
    }
    if (args.operation === "updateFrontmatter" && (args.update === undefined || Object.keys(args.update).length === 0)) {
      ctx.addIssue({ code: "custom", path: ["update"], message: "updateFrontmatter needs a non-empty `update`" });
    }
    if (args.operation === undefined && args.update !== undefined) {
      ctx.addIssue({ code: "custom", path: ["update"], message: '`update` belongs with `operation: "updateFrontmatter"`' });
    }
  });

export const fsApplyPatch = defineTool({
  name: "fs.apply_patch",
  targetKind: "path",
  args: FsApplyPatchArgsSchema,
  plan(args, env) {
    const located = env.mounts.locate(args.path, { intent: "write", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    const path = located.virtual.text;
    return {
      target: path,
      async execute(): Promise<FsApplyPatchOk> {
        let applied: number | undefined;
        const outcome = await mutateFile(env.queue, env.limits, located, { createDirs: false, createOnly: false, ifMatchSha256: args.ifMatchSha256 }, (current) => {
          const text = current === null ? null : decodeText(current);
          if (current !== null && text === null) throw new ToolFailure("E_BINARY_FILE", `${path} is a binary file; only text files can be patched.`, { path });
          if (args.update) {
            if (text === null) throw new ToolFailure("ENOENT", `${path} does not exist; create the document with fs.write first.`, { path });
            return Buffer.from(updateFrontmatter(text, args.update, path), "utf8");
          }
          const patch = args.patch ?? "";
          const result = isSearchReplace(patch) ? applySearchReplace(text, patch, path) : applyUnifiedDiff(text, patch, path);
          applied = result.applied;
          return Buffer.from(result.text, "utf8");
        });
        return { ok: true, path, sha256Before: outcome.sha256Before, sha256After: outcome.sha256After, ...(applied !== undefined ? { applied } : {}) };
      },
    };
  },
});
