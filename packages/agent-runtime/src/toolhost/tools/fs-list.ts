import * as fs from "node:fs";
import { z } from "zod";
import type { FsListItem, FsListOk } from "@weft/types";
import { openDirectory } from "../fs/secure-fs.ts";
import { childPath } from "../fs/virtual-path.ts";
import { walkDirectory } from "../fs/walk.ts";
import { defineTool } from "../tool.ts";

export const FsListArgsSchema = z
  .object({
    path: z.string().default("@project/").describe("Folder to list, as a mount path (default @project/)"),
    recursive: z.boolean().default(false).describe("Also list everything below, depth first (.git and node_modules are shown but not entered)"),
    maxEntries: z.number().int().min(1).optional().describe("Stop after this many entries (capped by the host's limit)"),
  })
  .strict();

export const fsList = defineTool({
  name: "fs.list",
  targetKind: "path",
  args: FsListArgsSchema,
  plan(args, env) {
    const located = env.mounts.locate(args.path, { intent: "read", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    return {
      target: located.virtual.text,
      async execute(): Promise<FsListOk> {
        const max = Math.min(args.maxEntries ?? env.limits.maxListEntries, env.limits.maxListEntries);
        const dirFd = openDirectory(located);
        const items: FsListItem[] = [];
        let truncated = false;
        try {
          for await (const entry of walkDirectory(dirFd, { recursive: args.recursive, signal: env.signal })) {
            // Entries the rules keep from fs.list are left out, as if they were not there.
            if (env.pathRules.blocks(["fs.list"], childPath(located.virtual, entry.relPath).text)) continue;
            if (items.length === max) {
              truncated = true;
              break;
            }
            items.push({
              path: entry.kind === "dir" ? entry.relPath + "/" : entry.relPath,
              type: entry.kind,
              ...(entry.kind === "file" ? { bytes: entry.stat.size } : {}),
            });
          }
        } finally {
          fs.closeSync(dirFd);
        }
        const names = items.map((i) => i.path);
        const path = located.virtual.text;
        if (!truncated) return { ok: true, path, entries: names, items, truncated: false };
        return {
          ok: true,
          path,
          entriesPreview: names,
          items,
          truncated: true,
          hint: `Showing the first ${max} entries. List a subfolder${args.recursive ? " or drop `recursive`" : ""}, or use fs.search to find files by content.`,
        };
      },
    };
  },
});
