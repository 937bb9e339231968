/**
 * The encodings a secret most often travels in, besides itself: percent-encoded (as in a URL or a
 * form body, upper- and lower-case hex) and base64 (standard and URL-safe). Base64 of a longer text
 * that contains the secret (`Bearer <secret>`, `user:<secret>`) encodes it differently depending on
 * where it starts, modulo 3 bytes: for each of the three offsets this gives the characters that
 * depend on the secret's bytes alone, so the secret is found inside any base64 text.
 *
 * This catches re-encodings, not derivations: a secret reversed, split, hashed or encrypted passes
 * through. Binding a credential to its hosts is the protection; redaction is a last net.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const percent = encodeURIComponent(secret);
  const form = new URLSearchParams([["", secret]]).toString().slice(1);
  for (const encoded of [percent, form]) {
    forms.add(encoded);
    forms.add(encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  }
  const bytes = new TextEncoder().encode(secret);
  for (let offset = 0; offset < 3; offset++) {
    const length = offset + bytes.length;
    // Characters before `skip` mix in the offset's bytes; from `end` on, whatever follows the secret.
    const skip = offset === 0 ? 0 : offset + 1;
    const end = Math.floor((length * 8) / 6);
    const core = base64([...new Uint8Array(offset), ...bytes]).slice(skip, end);
    forms.add(core);
    forms.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...forms];
}

/** Standard base64 with btoa, which the browser has too (this package is shared with the editor). */
function base64(bytes: readonly number[]): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
