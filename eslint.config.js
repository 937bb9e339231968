// One lint config for the whole monorepo. Not the type-checked presets: they are slow on 2 cores and
// `bun run typecheck` already runs tsc and vue-tsc.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import vue from "eslint-plugin-vue";
import prettier from "eslint-config-prettier";
import globals from "globals";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/*.tmp.ts", "patches/**", "project/**", "data/**", ".tmp/**", "test-results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs["flat/recommended"],
  {
    files: ["**/*.vue"],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: [".vue"] } },
  },
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, Bun: "readonly" } },
    rules: {
      // `const { omitted: _x, ...rest } = value` is how the code drops keys from a copy.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // `let agent; … onEvent: () => agent && …; agent = …`: as a const, the callback's read would hit the TDZ.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  // Last, so formatting-only rules (from any preset above) are left to prettier.
  prettier,
);
