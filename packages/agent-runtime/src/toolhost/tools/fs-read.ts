import { z } from "zod";
import type { FsReadOk } from "@weft/types";
import { readFileSecure } from "../fs/secure-fs.ts";
import { decodeText, lineStarts, sha256, utf8Length, utf8Prefix } from "../fs/text.ts";
import { defineTool } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";

export const FsReadArgsSchema = z
  .object({
    path: z.string().describe("File to read, as a mount path, e.g. @project/README.md"),
    offset: z.number().int().min(1).optional().describe("First line to return, counting from 1 (default 1)"),
    limit: z.number().int().min(1).optional().describe("How many lines to return (default: to the end of the file, within the size limit)"),
  })
  .strict();

export const fsRead = defineTool({
  name: "fs.read",
  targetKind: "path",
  args: FsReadArgsSchema,
  plan(args, env) {
    const located = env.mounts.locate(args.path, { intent: "read", stateScope: env.stateScope, maxPathBytes: env.limits.maxPathBytes });
    return {
      target: located.virtual.text,
      async execute(): Promise<FsReadOk> {
        const path = located.virtual.text;
        const file = await readFileSecure(located, env.limits.maxFileBytes);
        if (!file) throw new ToolFailure("ENOENT", `${path} does not exist. Use fs.list on its folder to see what is there.`, { path });
        const digest = sha256(file.data);
        const text = decodeText(file.data);
        if (text === null) {
          throw new ToolFailure("E_BINARY_FILE", `${path} is a binary file (${file.data.length} bytes); fs.read returns text only.`, { path, bytes: file.data.length, sha256: digest });
        }
        const starts = lineStarts(text);
        const totalLines = text.length === 0 ? 0 : starts.length;
        const lineStart = args.offset ?? 1;
        if (lineStart > Math.max(totalLines, 1)) {
          throw new ToolFailure("E_SCHEMA_VALIDATION", `offset ${lineStart} is past the end of ${path}, which has ${totalLines} lines.`, { path, totalLines });
        }
        const lineEnd = Math.min(totalLines, args.limit === undefined ? totalLines : lineStart + args.limit - 1);
        const offsetOf = (line: number) => (line <= totalLines ? starts[line - 1] : text.length);
        const window = text.slice(offsetOf(lineStart), offsetOf(lineEnd + 1));
        const common = { ok: true as const, path, bytes: file.data.length, sha256: digest, lineStart, totalLines };
        const max = env.limits.maxReadBytes;
        if (utf8Length(window) <= max) return { ...common, truncated: false, content: window, lineEnd };

        // Whole lines that fit; a single line over the limit is cut inside.
        let previewEnd = lineStart - 1;
        let previewBytes = 0;
        while (previewEnd < lineEnd) {
          const lineBytes = utf8Length(text.slice(offsetOf(previewEnd + 1), offsetOf(previewEnd + 2)));
          if (previewBytes + lineBytes > max) break;
          previewBytes += lineBytes;
          previewEnd++;
        }
        const selectedBytes = utf8Length(window);
        if (previewEnd < lineStart) {
          return {
            ...common,
            truncated: true,
            lineEnd: lineStart,
            contentPreview: utf8Prefix(window, max),
            hint: `Line ${lineStart} alone is longer than the ${max}-byte limit; the preview shows its start. Use fs.search to find the part you need.`,
          };
        }
        const perLine = Math.max(1, previewBytes / (previewEnd - lineStart + 1));
        const nextLimit = Math.max(1, Math.floor(max / perLine) - 1);
        return {
          ...common,
          truncated: true,
          lineEnd: previewEnd,
          contentPreview: text.slice(offsetOf(lineStart), offsetOf(previewEnd + 1)),
          hint:
            `Lines ${lineStart}-${lineEnd} are ${selectedBytes} bytes, over the ${max}-byte limit; the preview shows lines ${lineStart}-${previewEnd}. ` +
            `Read on with fs.read ${JSON.stringify({ path, offset: previewEnd + 1, limit: nextLimit })}, or find the part you need with fs.search.`,
        };
      },
    };
  },
});
