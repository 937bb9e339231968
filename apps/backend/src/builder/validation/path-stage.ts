import { findings, type Findings, type ValidationContext } from "./findings.ts";

/**
 * Stage 5 (seed 001 §8 "security/path"): every asset the change writes is a path the ToolHost
 * accepts (its mount, `..`, symlink and look-alike checks run on a read of the path) and lies in
 * the writable `@project/` mount; the file it replaces is text the Builder can read back whole.
 */
export async function pathStage(ctx: ValidationContext): Promise<Findings> {
  const out = findings();
  for (const entry of ctx.entries) {
    if (entry.type !== "asset") continue;
    const where = { stage: "path" as const, objectType: "asset" as const, objectKey: entry.key };
    if (!ctx.view.assets.available) {
      out.errors.push({
        code: "AI_ASSETS_UNAVAILABLE",
        message: "the file tools are not available in this server, so assets cannot be written",
        hint: "remove the asset from the change set; the server log says why the tools are off",
        ...where,
      });
      continue;
    }
    const stored = await ctx.view.assets.state(entry.key);
    if (stored.kind === "refused") {
      const tooLarge = stored.code === "AI_ASSET_TOO_LARGE" || stored.code === "E_READ_LIMIT";
      out.errors.push({
        code: tooLarge ? "AI_ASSET_TOO_LARGE" : stored.code === "E_BINARY_FILE" ? "AI_ASSET_NOT_TEXT" : "AI_PATH_UNSAFE",
        message: stored.message,
        hint: tooLarge || stored.code === "E_BINARY_FILE" ? "write a new, smaller text file instead" : "use a plain path inside @project/, e.g. @project/prompts/intro.md",
        ...where,
      });
      continue;
    }
    if (stored.path.startsWith("@pkg/")) {
      out.errors.push({
        code: "AI_PATH_READ_ONLY",
        message: `${stored.path} is in @pkg/, the installed packages, which are read-only`,
        hint: `write a copy under @project/ instead, e.g. @project/${stored.path.slice("@pkg/".length)}`,
        ...where,
      });
    } else if (!stored.path.startsWith("@project/")) {
      out.errors.push({ code: "AI_PATH_UNSAFE", message: `${stored.path} is not in @project/, the only place assets are written`, hint: "use a path starting with @project/", ...where });
    } else if (stored.path.split("/").includes(".git")) {
      // The ToolHost never writes inside .git/; refusing here names it before apply would fail.
      out.errors.push({ code: "AI_PATH_UNSAFE", message: `${stored.path} is inside .git/, which belongs to version control`, hint: "write the asset outside .git/", ...where });
    } else if (stored.path.endsWith("/") || stored.path === "@project/") {
      out.errors.push({ code: "AI_PATH_UNSAFE", message: `${stored.path} names a folder, not a file`, hint: "add the file name, e.g. @project/prompts/intro.md", ...where });
    }
  }
  return out;
}
