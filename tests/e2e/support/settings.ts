import type { Locator, Page } from "playwright-core";

/** Opens Settings from the editor on one tab (`settings-tab-<tab>`): that tab's section, found by its test id. */
export async function openSettingsTab(page: Page, tab: string, section: string): Promise<Locator> {
  await page.getByTestId("settings").click();
  await page.getByTestId(`settings-tab-${tab}`).click();
  return page.getByTestId(section);
}
