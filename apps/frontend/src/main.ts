// First: it configures zod before any schema is built.
import "./app/zod-config.ts";
import { createApp } from "vue";
import { createPinia } from "pinia";
import "@vue-flow/core/dist/style.css";
import "@vue-flow/core/dist/theme-default.css";
import "@vue-flow/controls/dist/style.css";
import "./styles/theme.css";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/canvas.css";
import "./styles/settings.css";
import App from "./App.vue";

createApp(App).use(createPinia()).mount("#app");
