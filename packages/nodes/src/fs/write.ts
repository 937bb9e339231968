import { FsWriteOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "./tool-call.ts";

export const fsWrite = defineNode(
  {
    type: "fs:write",
    title: "Write file",
    description:
      "Writes a text file in @project/ or @state/ atomically: the old content stays intact until the new one is complete on disk. Modes: create (fail if it exists), overwrite, append. With ifMatchSha256 (from fs:read) the write only happens if nobody changed the file meanwhile. Markdown frontmatter is checked.",
    category: "files",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "The file, as a mount path, e.g. @project/notes/summary.md." },
      { id: "content", type: "string", required: true, multiline: true, label: "Content", description: "The text to write." },
      {
        id: "mode",
        type: "string",
        default: "overwrite",
        options: ["create", "overwrite", "append"],
        label: "Mode",
        description: "create: fail if the file exists; overwrite: replace it; append: add to its end.",
      },
      { id: "ifMatchSha256", type: "string", label: "If SHA-256 is", description: "Only write when the file's current SHA-256 is this (from fs:read); otherwise fail with E_PRECONDITION_FAILED." },
      { id: "createDirs", type: "boolean", default: true, label: "Create folders", description: "Create missing parent folders." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "sha256", type: "string", label: "SHA-256", description: "Digest of the file's new content." },
      { id: "bytesWritten", type: "integer", label: "Bytes written", description: "Bytes of content written." },
    ],
  },
  async (inputs, ctx) => {
    const result = await callToolHost(ctx, "fs:write", "fs.write", {
      path: inputs.path,
      content: inputs.content,
      mode: inputs.mode,
      ifMatchSha256: inputs.ifMatchSha256 || undefined,
      createDirs: inputs.createDirs,
    });
    return toolOutputs(result, FsWriteOkSchema, (ok) => ({ sha256: ok.sha256After, bytesWritten: ok.bytesWritten }));
  },
);
