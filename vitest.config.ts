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
    // Generous: on a busy 2-core machine a test that takes 2 s idle took 50 (a child server's start, 20). A hung test
    // still fails, later. Tests wait for conditions, not for fixed times.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
