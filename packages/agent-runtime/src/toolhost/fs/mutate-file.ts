import * as fs from "node:fs";
import type { ToolLimits } from "@weft/types";
import { hasFrontmatter, parseFrontmatter } from "../patch/frontmatter.ts";
import { ToolFailure } from "../tool-failure.ts";
import { atomicReplace, readExisting } from "./atomic-write.ts";
import type { PathQueue } from "./path-queue.ts";
import { openDirectory, type Located } from "./secure-fs.ts";
import { sha256 } from "./text.ts";

export interface MutateOptions {
  createDirs: boolean;
  createOnly: boolean;
  /** The change goes ahead only if the file's current content has this SHA-256. */
  ifMatchSha256?: string;
}

export interface MutateOutcome {
  sha256Before: string | null;
  sha256After: string;
  bytes: number;
  created: boolean;
}

const MARKDOWN = /\.(md|markdown|mdx)$/i;

/** Checks a Markdown document's frontmatter before it is stored: a broken one is refused, not saved. */
function assertValidDocument(located: Located, data: Uint8Array): void {
  if (!MARKDOWN.test(located.virtual.text)) return;
  const text = Buffer.from(data).toString("utf8");
  if (hasFrontmatter(text)) parseFrontmatter(text, located.virtual.text);
}

/**
 * The one write path of the tool host: under the file's queue (so concurrent changes to the same
 * file run one after another and none is lost), read the current content, check the
 * preconditions, compute the new content, check limits and frontmatter, and replace atomically.
 */
export function mutateFile(queue: PathQueue, limits: ToolLimits, located: Located, options: MutateOptions, change: (current: Buffer | null) => Uint8Array): Promise<MutateOutcome> {
  const path = located.virtual.text;
  if (located.virtual.segments.length === 0) return Promise.reject(new ToolFailure("EISDIR", `${path} is a mount's root folder; name a file inside it.`, { path }));
  return queue.run(located.real, async () => {
    const dirFd = openDirectory(located, { depth: located.virtual.segments.length - 1, create: options.createDirs });
    try {
      const existing = await readExisting(dirFd, located, limits.maxWriteBytes);
      if (options.createOnly && existing) throw new ToolFailure("EEXIST", `${path} already exists and mode is "create". Use mode "overwrite" to replace it.`, { path });
      const before = existing ? sha256(existing.data) : null;
      if (options.ifMatchSha256 !== undefined) {
        if (before === null) throw new ToolFailure("E_PRECONDITION_FAILED", `${path} does not exist, but ifMatchSha256 expects existing content.`, { path, expected: options.ifMatchSha256 });
        if (before !== options.ifMatchSha256.toLowerCase()) {
          throw new ToolFailure("E_PRECONDITION_FAILED", `${path} changed since it was read (its SHA-256 is no longer ${options.ifMatchSha256}). Read it again, then retry with the new sha256.`, {
            path,
            expected: options.ifMatchSha256,
            actual: before,
          });
        }
      }
      const data = change(existing?.data ?? null);
      if (data.length > limits.maxWriteBytes) {
        throw new ToolFailure("E_WRITE_LIMIT", `The new content of ${path} is ${data.length} bytes, over the write limit of ${limits.maxWriteBytes}. Write less, or split it into several files.`, {
          path,
          bytes: data.length,
          limit: limits.maxWriteBytes,
        });
      }
      assertValidDocument(located, data);
      await atomicReplace(dirFd, located, data, { createOnly: options.createOnly, mode: existing?.mode ?? 0o644 });
      return { sha256Before: before, sha256After: sha256(data), bytes: data.length, created: existing === null };
    } finally {
      fs.closeSync(dirFd);
    }
  });
}
