import { describe, expect, it } from "vitest";
import { expectFailure, runNode } from "../testing/harness.ts";
import { textTemplate } from "./text-template.ts";

describe("core:text-template", () => {
  it("fills named placeholders from vars, with dotted paths and spaces inside braces", async () => {
    const out = await runNode(textTemplate, { vars: { topic: "weaving", user: { name: "Ada" } } }, { template: "{{ user.name }} writes about {{topic}}." });
    expect(out).toEqual({ text: "Ada writes about weaving." });
  });

  it("fills positional placeholders from the multi input, and writes objects as JSON", async () => {
    const out = await runNode(textTemplate, { values: ["a", 2, { k: true }, null] }, { template: "{{0}}-{{1}}-{{2}}-[{{3}}]" });
    expect(out).toEqual({ text: 'a-2-{"k":true}-[]' });
  });

  it("takes the template from the input when given, over the setting", async () => {
    expect(await runNode(textTemplate, { template: "Hi {{0}}", values: ["Bo"] }, { template: "ignored" })).toEqual({ text: "Hi Bo" });
  });

  it("fails on a missing variable, naming it and the known ones", async () => {
    const failure = await expectFailure(runNode(textTemplate, { vars: { topic: "x" }, values: ["v"] }, { template: "{{topic}} {{tone}} {{5}}" }), "MISSING_VARIABLE");
    expect(failure.message).toBe('Template variables {{tone}}, {{5}} have no value. Known: topic, 0. Add them to "vars" (or connect "values"), or set "Missing variable" to blank.');
    expect(failure.details).toEqual({ missing: ["tone", "5"], known: ["topic", "0"] });
  });

  it("leaves missing variables blank or as written when told to", async () => {
    expect(await runNode(textTemplate, {}, { template: "a{{x}}b", onMissing: "blank" })).toEqual({ text: "ab" });
    expect(await runNode(textTemplate, {}, { template: "a{{ x }}b", onMissing: "keep" })).toEqual({ text: "a{{ x }}b" });
  });

  it("refuses vars that are not an object, pointing to the positional input", async () => {
    const failure = await expectFailure(runNode(textTemplate, { vars: "weaving" }, { template: "{{0}}" }), "INVALID_INPUT");
    expect(failure.message).toContain('connect it to "values" and write {{0}}');
  });

  it("reports a malformed placeholder path", async () => {
    await expectFailure(runNode(textTemplate, { vars: {} }, { template: "{{a..b}}" }), "INVALID_PATH");
  });
});
