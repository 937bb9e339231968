import { FsReadOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "./tool-call.ts";

export const fsRead = defineNode(
  {
    type: "fs:read",
    title: "Read file",
    description:
      "Reads a text file inside the sandbox (@project/, @pkg/ or @state/), whole or by line window (offset, limit). A selection over the size limit comes back truncated with a preview and a hint for reading the rest; binary files are refused. Gives the content and its sha256 for a later guarded write.",
    category: "files",
    inputs: [
      { id: "path", type: "string", required: true, label: "Path", description: "The file, as a mount path, e.g. @project/README.md." },
      { id: "offset", type: "integer", min: 1, label: "From line", description: "First line to return, counting from 1 (default 1)." },
      { id: "limit", type: "integer", min: 1, label: "Lines", description: "How many lines to return (default: to the end, within the size limit)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "content", type: "string", label: "Content", description: "The text read (the preview when truncated)." },
      { id: "truncated", type: "boolean", label: "Truncated", description: "Whether the selection was over the size limit; see result.hint for reading on." },
      { id: "sha256", type: "string", label: "SHA-256", description: "Digest of the whole file, for fs:write's ifMatchSha256." },
      { id: "totalLines", type: "integer", label: "Total lines", description: "Number of lines in the whole file." },
    ],
  },
  async (inputs, ctx) => {
    const result = await callToolHost(ctx, "fs:read", "fs.read", { path: inputs.path, offset: inputs.offset, limit: inputs.limit });
    return toolOutputs(result, FsReadOkSchema, (ok) => ({
      content: ok.truncated ? ok.contentPreview : ok.content,
      truncated: ok.truncated,
      sha256: ok.sha256,
      totalLines: ok.totalLines,
    }));
  },
);
