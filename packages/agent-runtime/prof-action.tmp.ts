import { parseAction } from "./src/action/parser/parse-action.ts";
import { fixtureManifest } from "./src/action/test-support.ts";
const m = fixtureManifest();
const head = "The setting is still off.\n<ACTION>\n  <fs_apply_diff>\n    <file_path>config/settings.json</file_path>\n    <dry_run>false</dry_run>\n    <diff><![CDATA[\n--- a\n+++ b\n";
let lines = []; for (let i = 0; i < 24; i++) lines.push(`-  "key_${i}": "old <value> & more",`);
const text = head + lines.join("\n") + "]]></diff>\n  </fs_apply_diff>\n</ACTION>";
const N = 200000; const t = performance.now(); for (let i = 0; i < N; i++) parseAction(text, m); console.log(((performance.now() - t) * 1000 / N).toFixed(2), "µs");
