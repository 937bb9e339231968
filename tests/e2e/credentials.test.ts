import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { openSettingsTab } from "./support/settings.ts";
import { signInBrowser, useWeft } from "./support/weft.ts";
import { CredentialListSchema } from "../../apps/backend/src/testing/answers.ts";

const SECRET = "ghp-e2e-Secret-Value-9Xk2Lq7Wm4";

const weft = useWeft({}, async () => {
  expect((await weft.api("POST", "/api/users", { username: "edna", role: "editor", password: "edna's password" })).status).toBe(201);
});

describe("Settings → Credentials", () => {
  it("adds a credential bound to hosts and roles whose secret is stored but never shown again, edits it keeping the secret, and deletes it", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    const section = await openSettingsTab(page, "credentials", "credentials");
    await section.getByTestId("credential-name").fill("github");
    await section.getByTestId("credential-kind").selectOption("header");
    await section.getByLabel("Header name").fill("X-Api-Key");
    await section.getByTestId("credential-secret").fill(SECRET);
    // A malformed host is refused with how to write it; nothing is stored.
    await section.getByTestId("credential-hosts").fill("api.github.com");
    await section.getByTestId("credential-save").click();
    await poll(() => section.getByTestId("credential-error").innerText()).toContain("https://api.example.com");
    await section.getByTestId("credential-hosts").fill("https://api.github.com\nhttps://uploads.github.com/repos");
    await section.getByTestId("credential-role-editor").check();
    await section.getByTestId("credential-save").click();
    await poll(() => section.getByTestId("credential-github").count()).toBe(1);
    expect(await section.getByTestId("credential-github").innerText()).toContain("X-Api-Key");
    expect(await section.getByTestId("credential-hosts-github").innerText()).toContain("https://uploads.github.com/repos");
    expect(await section.getByTestId("credential-roles-github").innerText()).toBe("Owners, Editors");
    expect(await page.content()).not.toContain(SECRET);

    await section.getByTestId("credential-github").getByRole("button", { name: "Edit" }).click();
    expect(await section.getByTestId("credential-hosts").inputValue()).toBe("https://api.github.com\nhttps://uploads.github.com/repos");
    await section.getByLabel("Description").fill("the GitHub API");
    await section.getByTestId("credential-role-editor").uncheck();
    await section.getByTestId("credential-save").click();
    await poll(() => section.getByTestId("credential-github").innerText()).toContain("the GitHub API");
    const listed = await weft.api("GET", "/api/credentials");
    expect(CredentialListSchema.parse(listed.body).credentials).toEqual([
      expect.objectContaining({
        name: "github",
        kind: "header",
        header: "X-Api-Key",
        hasSecret: true,
        description: "the GitHub API",
        hosts: ["https://api.github.com", "https://uploads.github.com/repos"],
        roles: ["owner"],
      }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);

    // An editor sees where it goes and who may use it, read-only.
    await page.getByTestId("settings-close").click();
    await weft.context.clearCookies();
    await page.goto(weft.url);
    const login = page.getByRole("dialog", { name: "Sign in to Weft" });
    await login.getByLabel("Username").fill("edna");
    await login.getByLabel("Password").fill("edna's password");
    await login.getByRole("button", { name: "Sign in" }).click();
    await poll(() => page.getByTestId("user-menu").count()).toBe(1);
    const readOnly = await openSettingsTab(page, "credentials", "credentials");
    await poll(() => readOnly.getByTestId("credential-hosts-github").innerText()).toContain("https://api.github.com");
    expect(await readOnly.getByTestId("credential-roles-github").innerText()).toBe("Owners");
    expect(await readOnly.getByTestId("credentials-read-only").count()).toBe(1);
    expect(await readOnly.locator("form").count()).toBe(0);
    expect(await readOnly.getByRole("button", { name: "Delete github" }).count()).toBe(0);
    expect(await page.content()).not.toContain(SECRET);
    await page.getByTestId("settings-close").click();
    await weft.context.clearCookies();
    await signInBrowser(weft.context, weft.server);
    await page.goto(weft.url);
    const section2 = await openSettingsTab(page, "credentials", "credentials");
    await poll(() => section2.getByTestId("credential-github").count()).toBe(1);

    await section2.getByRole("button", { name: "Delete github" }).click();
    await poll(() => section2.getByTestId("credential-github").count()).toBe(0);
  });
});
