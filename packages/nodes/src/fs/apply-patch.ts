import { FsApplyPatchOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "./tool-call.ts";

export const fsApplyPatch = defineNode(
  {
    type: "fs:apply-patch",
    title: "Patch file",
    description:
      "Changes a text file in @project/ or @state/ by a unified diff or by search/replace blocks (<<<<<<< SEARCH, exact old lines, =======, new lines, >>>>>>> REPLACE), or updates a Markdown document's YAML frontmatter. All or nothing: if one hunk or block does not apply, nothing changes and the error says which and why.",
    category: "files",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "The file, as a mount path." },
      { id: "patch", type: "string", multiline: true, label: "Patch", description: "A unified diff of this file, or search/replace blocks. Leave empty when updating frontmatter." },
      {
        id: "frontmatterUpdate",
        type: "json",
        label: "Frontmatter update",
        description:
          "Instead of a patch: { stepsCompleted: {append: [..]}, variables: {set: {..}}, decisionLog: {append: [{..}]}, artifacts: {append: [..]}, currentNodeId: {set: ..}, updatedAt: {set: ISO time} }.",
      },
      { id: "ifMatchSha256", type: "string", label: "If SHA-256 is", description: "Only change the file when its current SHA-256 is this (from fs:read)." },
    ],
    outputs: [RESULT_PORT, OK_PORT, { id: "sha256", type: "string", label: "SHA-256", description: "Digest of the file's new content." }],
  },
  async (inputs, ctx) => {
    const frontmatter = inputs.frontmatterUpdate;
    const result = await callToolHost(ctx, "fs:apply-patch", "fs.apply_patch", {
      path: inputs.path,
      patch: inputs.patch || undefined,
      ...(frontmatter !== undefined && frontmatter !== null ? { operation: "updateFrontmatter", update: frontmatter } : {}),
      ifMatchSha256: inputs.ifMatchSha256 || undefined,
    });
    return toolOutputs(result, FsApplyPatchOkSchema, (ok) => ({ sha256: ok.sha256After }));
  },
);
