import { randomBytes, scryptSync } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SecretRedactor } from "@weft/types";

export const MASTER_KEY_FILE = "master.key";
const KEY_BYTES = 32;

export class MasterKeyError extends Error {
  readonly code = "MASTER_KEY_INVALID";
}

/**
 * The 32-byte key that encrypts secrets at rest. From `WEFT_SECRET` when set (any passphrase,
 * stretched with scrypt), otherwise from `<dataDir>/master.key`, generated on first use with mode 0600.
 * The passphrase and the key as text go to the redactor, so they are never stored, sent or logged.
 */
export function loadMasterKey(dataDir: string, secret: string | undefined, redactor: SecretRedactor): Buffer {
  if (secret !== undefined && secret !== "") {
    if (secret.length < 16) throw new MasterKeyError("WEFT_SECRET is shorter than 16 characters; use a long random value (e.g. `openssl rand -hex 32`).");
    const key = scryptSync(secret, "weft/master-key/v1", KEY_BYTES);
    redactor.set("master-key", "WEFT_SECRET", [secret, key.toString("base64")]);
    return key;
  }
  const file = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(file)) createKeyFile(file);
  // A key file readable by others is tightened rather than trusted as is.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== KEY_BYTES) throw new MasterKeyError(`${file} does not hold a base64 32-byte key; restore it from a backup (or delete it and re-enter every LLM API key).`);
  redactor.set("master-key", "master key", [key.toString("base64")]);
  return key;
}

/**
 * Writes a new key whole in a file of its own, then links it in as master.key: the link appears at once with the
 * whole key, and fails if another process (an API process and a worker starting together) linked theirs first —
 * never overwriting a key that may already encrypt secrets. A file created in place is briefly empty to its readers.
 */
function createKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.new`;
  writeFileSync(draft, randomBytes(KEY_BYTES).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}
