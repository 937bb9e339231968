/** The output cache: what a key is (cache-key.ts), how entries are kept (output-cache.ts, lru-output-cache.ts). See README.md. */
export type { CacheEntry, LateKeys, OutputCache } from "./output-cache.ts";
export { CacheKey, cacheKey, keyHeads, NO_REF, volatileRef, type KeyHead } from "./cache-key.ts";
export { LruOutputCache } from "./lru-output-cache.ts";
export { RunKeys } from "./run-keys.ts";
