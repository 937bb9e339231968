import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { openSettingsTab } from "./support/settings.ts";
import { useWeft } from "./support/weft.ts";
import { CredentialListSchema } from "../../apps/backend/src/testing/answers.ts";

const SECRET = "ghp-e2e-Secret-Value-9Xk2Lq7Wm4";

const weft = useWeft();

describe("Settings → Credentials", () => {
  it("adds a credential whose secret is stored but never shown again, edits it keeping the secret, and deletes it", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    const section = await openSettingsTab(page, "credentials", "credentials");
    await section.getByTestId("credential-name").fill("github");
    await section.getByTestId("credential-kind").selectOption("header");
    await section.getByLabel("Header name").fill("X-Api-Key");
    await section.getByTestId("credential-secret").fill(SECRET);
    await section.getByTestId("credential-save").click();
    await poll(() => section.getByTestId("credential-github").count()).toBe(1);
    expect(await section.getByTestId("credential-github").innerText()).toContain("X-Api-Key");
    expect(await page.content()).not.toContain(SECRET);

    await section.getByTestId("credential-github").getByRole("button", { name: "Edit" }).click();
    await section.getByLabel("Description").fill("the GitHub API");
    await section.getByTestId("credential-save").click();
    await poll(() => section.getByTestId("credential-github").innerText()).toContain("the GitHub API");
    const listed = await weft.api("GET", "/api/credentials");
    expect(CredentialListSchema.parse(listed.body).credentials).toEqual([
      expect.objectContaining({ name: "github", kind: "header", header: "X-Api-Key", hasSecret: true, description: "the GitHub API" }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);

    await section.getByRole("button", { name: "Delete github" }).click();
    await poll(() => section.getByTestId("credential-github").count()).toBe(0);
  });
});
