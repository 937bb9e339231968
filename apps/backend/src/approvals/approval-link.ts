import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** The link key: HKDF of the installation's master key (as the queue's seal), so no process stores it. */
export function deriveLinkKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", masterKey, "weft/approvals", "weft approval link v1", 32));
}

const LinkClaimSchema = z.object({ a: z.string().min(1), e: z.number().int().positive(), m: z.string().min(1) }).strict();

/** What a verified link names: the approval, when the link stops working, and the user who made it (recorded as `link:<maker>`). */
export interface LinkClaim {
  approvalId: string;
  expiresAt: number;
  maker: string;
}

export type LinkCheck = { ok: true; claim: LinkClaim } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/**
 * Signed approval links (for mail and chat tools): `<claim>.<HMAC-SHA256 of the claim>`, both base64url. Anyone holding
 * one may decide its approval once before it expires; a changed claim or signature is refused (checked in constant
 * time), and use is single because a decision is (`ApprovalTable.decide`).
 */
export class ApprovalLinks {
  constructor(private readonly key: Buffer) {}

  sign(claim: LinkClaim): string {
    const body = Buffer.from(JSON.stringify({ a: claim.approvalId, e: claim.expiresAt, m: claim.maker })).toString("base64url");
    return `${body}.${this.mac(body)}`;
  }

  verify(token: string, now: number): LinkCheck {
    const dot = token.indexOf(".");
    if (dot <= 0 || dot !== token.lastIndexOf(".")) return { ok: false, reason: "malformed" };
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), "base64url");
    const expected = Buffer.from(this.mac(body), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };
    let parsed: z.ZodSafeParseResult<z.infer<typeof LinkClaimSchema>>;
    try {
      parsed = LinkClaimSchema.safeParse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
    } catch {
      return { ok: false, reason: "malformed" };
    }
    if (!parsed.success) return { ok: false, reason: "malformed" };
    if (parsed.data.e <= now) return { ok: false, reason: "expired" };
    return { ok: true, claim: { approvalId: parsed.data.a, expiresAt: parsed.data.e, maker: parsed.data.m } };
  }

  private mac(body: string): string {
    return createHmac("sha256", this.key).update(`weft-approval-link-v1\n${body}`).digest("base64url");
  }
}
