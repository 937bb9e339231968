/**
 * Runs before each test file (vitest.config.ts `setupFiles`). Its afterAll is registered first, so it runs after the file's
 * own afterAll hooks (vitest runs after-hooks in reverse order): servers are stopped before their folders go.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.ts";

afterAll(() => removeTempDirs());
