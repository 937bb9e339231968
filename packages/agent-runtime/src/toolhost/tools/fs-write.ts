import { z } from "zod";
import type { FsWriteOk } from "@weft/types";
import { mutateFile } from "../fs/mutate-file.ts";
import { defineTool } from "../tool.ts";

export const Sha256Schema = z.string().regex(/^[0-9a-fA-F]{64}$/, "a SHA-256 as 64 hex digits, as fs.read returns it");

export const FsWriteArgsSchema = z
  .object({
    path: z.string().describe("File to write, as a mount path in @project/ or @state/, e.g. @project/notes/summary.md"),
    content: z.string().describe("The text to write"),
    mode: z.enum(["create", "overwrite", "append"]).default("overwrite").describe("create: fail if the file exists; overwrite: replace it (default); append: add to its end"),
    ifMatchSha256: Sha256Schema.optional().describe("Only write if the file's current content has this SHA-256 (from fs.read), so a change made meanwhile is not lost"),
    createDirs: z.boolean().default(true).describe("Create missing parent folders (default true)"),
  })
  .strict();

export const fsWrite = defineTool({
  name: "fs.write",
  targetKind: "path",
  args: FsWriteArgsSchema,
  plan(args, env) {
    const located = env.mounts.locate(args.path, { intent: "write", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    return {
      target: located.virtual.text,
      async execute(): Promise<FsWriteOk> {
        const content = Buffer.from(args.content, "utf8");
        const outcome = await mutateFile(env.queue, env.limits, located, { createDirs: args.createDirs, createOnly: args.mode === "create", ifMatchSha256: args.ifMatchSha256 }, (current) =>
          args.mode === "append" && current ? Buffer.concat([current, content]) : content,
        );
        return { ok: true, path: located.virtual.text, bytesWritten: content.length, sha256After: outcome.sha256After, sha256Before: outcome.sha256Before, created: outcome.created };
      },
    };
  },
});
