import { join } from "node:path";
import type { Page } from "playwright-core";

/** Set WEFT_SCREENSHOTS to a folder to keep screenshots of the views in both themes (to look at the layout). */
export const SCREENSHOTS = process.env.WEFT_SCREENSHOTS;

/** The themes are CSS variables under `data-theme`: set it directly, so the page (an open dialog too) is shown in both as it is. */
export async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${theme}.png`) });
  }
  await page.evaluate((t) => (document.documentElement.dataset.theme = t), before ?? "light");
}
