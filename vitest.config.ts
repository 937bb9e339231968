import { defineConfig } from "vitest/config";
import vue from "@vitejs/plugin-vue";

export default defineConfig({
  plugins: [vue()],
  test: {
    // vitest 5 under Bun: the default forks pool does not work (STACK.md pitfall 1).
    pool: "threads",
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    // Removes the temp folders tempDir() made once each test file ends, a failing one's too.
    setupFiles: ["./apps/backend/src/testing/vitest-setup.ts"],
    // Generous: on a busy 2-core machine (load average 24) a test that takes 10 s idle took over 120. A hung test
    // still fails, later. Tests wait for conditions, not for fixed times.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
