import { FsListOkSchema } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "./tool-call.ts";

export const fsList = defineNode(
  {
    type: "fs:list",
    title: "List folder",
    description:
      "Lists a sandbox folder (@project/, @pkg/ or @state/): names (folders end in /) with type and size, optionally everything below it. Long listings are truncated with a hint. Symbolic links are shown, never followed.",
    category: "files",
    inputs: [
      { id: "path", type: "string", default: "@project/", label: "Folder", description: "The folder, as a mount path (default @project/)." },
      { id: "recursive", type: "boolean", default: false, label: "Recursive", description: "Also list everything below (.git and node_modules are shown but not entered)." },
      { id: "maxEntries", type: "integer", min: 1, label: "Max entries", description: "Stop after this many entries (the host's limit caps it)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "entries", type: "array", label: "Entries", description: "Paths relative to the folder; folders end in /." },
      { id: "items", type: "array", label: "Items", description: "Each entry with its type (file, dir, symlink, other) and size in bytes." },
      { id: "truncated", type: "boolean", label: "Truncated", description: "Whether the listing stopped at the entry limit." },
    ],
  },
  async (inputs, ctx) => {
    const result = await callToolHost(ctx, "fs:list", "fs.list", { path: inputs.path, recursive: inputs.recursive, maxEntries: inputs.maxEntries });
    return toolOutputs(result, FsListOkSchema, (ok) => ({
      entries: ok.truncated ? ok.entriesPreview : ok.entries,
      items: ok.items,
      truncated: ok.truncated,
    }));
  },
);
