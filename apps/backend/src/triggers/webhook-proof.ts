import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { WebhookConfig } from "@weft/types";

/** A signed request's timestamp may be this far from the server's clock (either way), as Stripe's default. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
export const SIGNATURE_HEADER = "x-weft-signature";
export const TIMESTAMP_HEADER = "x-weft-timestamp";
export const TOKEN_HEADER = "x-weft-token";

/** A new hook secret: 32 random bytes, prefixed so scanners and people know what it is. */
export function newHookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** `sha256=<hex>` of `timestamp.body` with the hook's secret: what a sender puts in X-Weft-Signature. */
export function signWebhook(secret: string, timestamp: string, body: Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")}`;
}

/** Equal in constant time: both sides are hashed first, so neither their lengths nor their bytes show in the timing. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest());
}

export type ProofRefusal = "MISSING_PROOF" | "BAD_TOKEN" | "BAD_SIGNATURE" | "STALE_TIMESTAMP";

/** What a verified request proved: for a signature, the digest it is remembered by (replays), and until when. */
export type Proof = { ok: true; replayKey?: { digest: string; expiresAt: number } } | { ok: false; reason: ProofRefusal; message: string };

/**
 * Checks a hook request's proof against the hook's secret. Token: `Authorization: Bearer <secret>` or
 * `X-Weft-Token`. HMAC: `X-Weft-Timestamp` (Unix seconds) within SIGNATURE_WINDOW_MS of now and
 * `X-Weft-Signature: sha256=<hex HMAC-SHA256 of "timestamp.body">`.
 */
export function checkProof(auth: WebhookConfig["auth"], secret: string, headers: Headers, body: Uint8Array, hookKey: string, now: number): Proof {
  switch (auth) {
    case "token": {
      const given = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1] ?? headers.get(TOKEN_HEADER) ?? undefined;
      if (given === undefined) return { ok: false, reason: "MISSING_PROOF", message: "This hook needs its secret: send Authorization: Bearer <secret> or X-Weft-Token: <secret>." };
      return sameSecret(given, secret) ? { ok: true } : { ok: false, reason: "BAD_TOKEN", message: "The hook's token is wrong. Rotate the secret in the editor if it was lost." };
    }
    case "hmac": {
      const timestamp = headers.get(TIMESTAMP_HEADER);
      const signature = headers.get(SIGNATURE_HEADER);
      if (timestamp === null || signature === null) {
        return {
          ok: false,
          reason: "MISSING_PROOF",
          message: `This hook needs a signature: send ${TIMESTAMP_HEADER}: <Unix seconds> and ${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the hook's secret>.`,
        };
      }
      const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
      if (!Number.isFinite(seconds) || Math.abs(now - seconds * 1000) > SIGNATURE_WINDOW_MS) {
        return {
          ok: false,
          reason: "STALE_TIMESTAMP",
          message: `${TIMESTAMP_HEADER} must be the current time in Unix seconds (within ${SIGNATURE_WINDOW_MS / 60_000} minutes of the server's clock); sign each request anew.`,
        };
      }
      if (!sameSecret(signature, signWebhook(secret, timestamp, body))) {
        return { ok: false, reason: "BAD_SIGNATURE", message: `${SIGNATURE_HEADER} does not match: sign "<timestamp>.<raw body>" with HMAC-SHA256 and the hook's secret, as sha256=<hex>.` };
      }
      const digest = createHash("sha256").update(`${hookKey}\n${signature}`).digest("hex");
      return { ok: true, replayKey: { digest, expiresAt: seconds * 1000 + SIGNATURE_WINDOW_MS } };
    }
    default: {
      const never: never = auth;
      return never;
    }
  }
}
