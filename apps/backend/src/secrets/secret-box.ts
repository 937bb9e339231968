import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretDecryptError extends Error {
  readonly code = "SECRET_UNREADABLE";
  constructor() {
    super("A stored secret cannot be decrypted: the master key (WEFT_SECRET or data/master.key) changed since it was saved. Enter the API key again.");
  }
}

/**
 * AES-256-GCM encryption of small secrets. `context` (e.g. the profile id) is bound in as
 * associated data, so a ciphertext copied onto another record does not decrypt.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  decrypt(sealed: string, context: string): string {
    const [version, payload] = sealed.split(":", 2);
    if (version !== VERSION || payload === undefined) throw new SecretDecryptError();
    const bytes = Buffer.from(payload, "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptError();
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretDecryptError();
    }
  }
}

/** What the UI may show of a key: a short prefix and the last four characters (`sk-…9f2c`). */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return "…" + "•".repeat(Math.min(secret.length, 4));
  const prefix = /^[A-Za-z]{2,5}[-_]/.exec(secret)?.[0] ?? "";
  return `${prefix}…${secret.slice(-4)}`;
}
