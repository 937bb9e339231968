import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "@weft/types";

/**
 * The `@project/` folder: the configured one, else `<dataDir>-project` beside the data folder.
 * Never inside it by default: the data folder holds the database and the master key, which the
 * agents' file and shell tools must not reach, and which a user sharing their project must not take along.
 */
export function resolveProjectDir(dataDir: string, configured: string | undefined, log: Logger): string {
  const projectDir = configured ?? `${dataDir.replace(/[\\/]+$/, "")}-project`;
  // Earlier versions used <dataDir>/project: its files are not moved behind the user's back, but pointed at.
  const old = join(dataDir, "project");
  if (resolve(projectDir) !== resolve(old) && existsSync(old) && readdirSync(old).length > 0) {
    log.warn("@project/ is no longer the data folder's project/: the tools do not see the files there", {
      old,
      projectDir,
      fix: "move the files to the new folder, or set WEFT_PROJECT_DIR to the old one",
    });
  }
  return projectDir;
}
