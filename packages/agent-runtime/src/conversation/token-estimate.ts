/**
 * A cheap token estimate for budgets: about four characters a token for Latin text, one token
 * per CJK (and other wide) character, plus a few tokens of per-message overhead. Good enough to
 * keep a request under a context window with a margin; never used for billing.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  let narrow = 0;
  let wide = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x2e80) wide++;
    else narrow++;
  }
  return wide + Math.ceil(narrow / 4);
}
