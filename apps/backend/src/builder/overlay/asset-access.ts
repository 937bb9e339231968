import { createHash } from "node:crypto";
import { FsReadOkSchema, type ToolCallContext, type ToolHostService, type ToolResult } from "@weft/types";

/** A file as apply and preview need it: whole, with its hash; or known not to exist; or refused with the tool host's reason. */
export type AssetState = { kind: "file"; path: string; sha256: string; content: string } | { kind: "missing"; path: string } | { kind: "refused"; path: string; code: string; message: string };

const NO_TOOL_HOST = "The file tools are not available in this server (see the server log), so assets cannot be read or written.";
const STATE_REFUSED = "@state/ holds the private files of runs; the Builder reads @project/ and @pkg/ and writes @project/ only.";

export function sha256Text(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Assets are read and written only through the ToolHost, so its path checks (mounts, `..`,
 * symlinks, look-alike characters), atomic writes and audit log apply to the Builder too.
 */
export class AssetAccess {
  constructor(
    private readonly toolHost: ToolHostService | undefined,
    private readonly ctx: ToolCallContext,
  ) {}

  get available(): boolean {
    return this.toolHost !== undefined;
  }

  /** The tool host's answer for a read, as the model gets it. */
  async read(path: string, window: { offset?: number; limit?: number } = {}): Promise<ToolResult> {
    if (!this.toolHost) return { ok: false, error: { code: "E_INTERNAL", message: NO_TOOL_HOST } };
    // Checked here because the tool host would open (and create) a @state/ folder for the session.
    if (path.startsWith("@state/") || path === "@state")
      return { ok: false, error: { code: "E_SANDBOX_VIOLATION", message: `Refused path ${JSON.stringify(path)}: ${STATE_REFUSED}`, details: { path } } };
    return this.toolHost.call("fs.read", { path, ...window }, this.ctx);
  }

  /** The whole file and its canonical path (`@project/a//b.md` → `@project/a/b.md`). */
  async state(path: string): Promise<AssetState> {
    const result = await this.read(path);
    if (result.ok) {
      const read = FsReadOkSchema.safeParse(result);
      if (!read.success) return { kind: "refused", path, code: "E_INTERNAL", message: "The tool host answered fs.read in an unexpected shape." };
      if (read.data.truncated) {
        return {
          kind: "refused",
          path: read.data.path,
          code: "AI_ASSET_TOO_LARGE",
          message: `${read.data.path} is ${read.data.bytes} bytes, more than one read returns; the Builder edits smaller text files only.`,
        };
      }
      return { kind: "file", path: read.data.path, sha256: read.data.sha256, content: read.data.content };
    }
    const canonical = typeof result.error.details?.path === "string" ? result.error.details.path : path;
    if (result.error.code === "ENOENT") return { kind: "missing", path: canonical };
    return { kind: "refused", path: canonical, code: result.error.code, message: result.error.message };
  }

  /** Writes the whole file atomically, only if it is still as expected (`null`: it must not exist yet). */
  async write(path: string, content: string, expectedSha256: string | null): Promise<ToolResult> {
    if (!this.toolHost) return { ok: false, error: { code: "E_INTERNAL", message: NO_TOOL_HOST } };
    if (!path.startsWith("@project/"))
      return { ok: false, error: { code: "E_SANDBOX_VIOLATION", message: `Refused path ${JSON.stringify(path)}: the Builder writes assets in @project/ only.`, details: { path } } };
    const guard = expectedSha256 === null ? { mode: "create" } : { mode: "overwrite", ifMatchSha256: expectedSha256 };
    return this.toolHost.call("fs.write", { path, content, ...guard }, this.ctx);
  }
}
