import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const ACCESS_TOKEN_FILE = "access-token";
const MIN_LENGTH = 16;

export class AccessTokenError extends Error {
  readonly code = "ACCESS_TOKEN_INVALID";
}

export interface AccessToken {
  value: string;
  /** Where it came from, for the messages that tell a locked-out user where to find it. */
  source: "env" | "file";
  /** The file that holds it (also when it came from the environment, so messages can name both). */
  file: string;
}

/**
 * The install's access token: `WEFT_AUTH_TOKEN` when set, otherwise `<dataDir>/access-token`,
 * generated on first start with mode 0600 (as Jupyter's token, it is what opens the editor).
 */
export function loadAccessToken(dataDir: string, fromEnv: string | undefined): AccessToken {
  const file = join(dataDir, ACCESS_TOKEN_FILE);
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < MIN_LENGTH) throw new AccessTokenError(`WEFT_AUTH_TOKEN is shorter than ${MIN_LENGTH} characters; use a long random value (e.g. \`openssl rand -hex 32\`).`);
    return { value: fromEnv, source: "env", file };
  }
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    // `wx`: a token another process just wrote is kept, or the URL it printed would stop working.
    try {
      writeFileSync(file, randomBytes(24).toString("base64url") + "\n", { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const value = readFileSync(file, "utf8").trim();
  if (value.length < MIN_LENGTH) throw new AccessTokenError(`${file} holds no usable token (under ${MIN_LENGTH} characters); delete it to have a new one made at the next start.`);
  return { value, source: "file", file };
}
