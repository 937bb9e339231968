import { z } from "zod";

/**
 * Imported first by main.ts, so it runs before any schema is built. The page's CSP allows no eval, so zod's
 * compiled object parsers were never used here; without `jitless`, the first object schema built probes
 * `new Function` anyway, and the refused probe (a CSP violation report) cost the opening ~10-30 ms.
 */
z.config({ jitless: true });
