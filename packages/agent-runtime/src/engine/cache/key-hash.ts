/**
 * The hash of a cache key, built part by part in two 32-bit lanes (FNV-1a's multiplier and
 * murmur2's) and folded into 53 bits at the end. Every text ends with a char (0xffff) that ids and
 * values never end in, so "ab"+"c" and "a"+"bc" hash apart.
 */
export const LANE_A = 0x01000193;
export const LANE_B = 0x5bd1e995;
export const SEED_A = 0x811c9dc5;
export const SEED_B = 0x3c6ef372;

/** Mixes in one 32-bit word (a tag, or a hash made earlier). */
export function hashWord(h: number, word: number, prime: number): number {
  return Math.imul(h ^ word, prime);
}

export function hashText(h: number, s: string, prime: number): number {
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), prime);
  return Math.imul(h ^ 0xffff, prime);
}

/** Mixes in an integer of up to 53 bits (a ref). */
export function hashInteger(h: number, x: number, prime: number): number {
  return Math.imul(Math.imul(h ^ (x >>> 0), prime) ^ (Math.floor(x / 4294967296) | 0), prime);
}

const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

/** Mixes in any number, by its 64 bits. */
export function hashNumber(h: number, x: number, prime: number): number {
  if ((x | 0) === x) return hashWord(h, x, prime);
  float[0] = x;
  return Math.imul(Math.imul(h ^ floatWords[0], prime) ^ floatWords[1], prime);
}

/** murmur3's final avalanche, so nearby refs spread over the whole hash. */
function avalanche(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The two lanes folded into a non-negative 53-bit integer. */
export function finishHash(a: number, b: number): number {
  return (avalanche(b) & 0x1fffff) * 4294967296 + (avalanche(a) >>> 0);
}
