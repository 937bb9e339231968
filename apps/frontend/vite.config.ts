import { defineConfig } from "vite";
import vue from "@vitejs/plugin-vue";

export default defineConfig({
  plugins: [vue()],
  build: {
    // Libraries change less often than the editor: a separate chunk stays cached across releases.
    // dagre (auto-layout) and diff (the Builder) stay out of it: they load when first used.
    rolldownOptions: {
      // The timing report is a yellow [PLUGIN_TIMINGS] warning on every build of a busy machine, read as an
      // error at `npm start`; the time is the Vue compiler's (vite:vue transform), expected and not ours to cut.
      checks: { bundlerTimings: false },
      output: { codeSplitting: { groups: [{ name: "vendor", test: (id) => id.includes("node_modules") && !/node_modules[\\/](@dagrejs|diff)[\\/]/.test(id) }] } },
    },
  },
  server: { proxy: { "/api": "http://localhost:3000", "/ws": { target: "ws://localhost:3000", ws: true } } },
});
