import type { z } from "zod";

/** localStorage that never throws (private mode, quota) and checks what it reads back. */
export function readLocal<S extends z.ZodType>(key: string, schema: S): z.infer<S> | undefined {
  try {
    const raw = globalThis.localStorage?.getItem(key);
    if (raw == null) return undefined;
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Returns false when the browser refused to store it (e.g. quota exceeded). */
export function writeLocal(key: string, value: unknown): boolean {
  try {
    if (value === undefined) globalThis.localStorage?.removeItem(key);
    else globalThis.localStorage?.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}
