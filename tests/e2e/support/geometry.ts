import type { Locator } from "playwright-core";

/** An element's box on the page, in CSS pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function box(locator: Locator): Promise<Rect> {
  const rect = await locator.boundingBox();
  if (!rect) throw new Error("the element is not shown");
  return rect;
}

/** The element lies wholly inside the window (not pushed off its right or bottom edge). */
export async function inViewport(locator: Locator): Promise<boolean> {
  const r = await box(locator);
  const size = locator.page().viewportSize();
  if (!size) throw new Error("the page has no fixed viewport");
  return r.x >= 0 && r.y >= 0 && r.x + r.width <= size.width + 0.5 && r.y + r.height <= size.height + 0.5;
}

export const overlap = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The element's own text is not cut: nothing of it overflows its box, and every clipping ancestor shows the whole box. */
export async function fullyShown(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    if (el.scrollWidth > el.clientWidth + 1) return false;
    const r = el.getBoundingClientRect();
    for (let up = el.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === "visible" && style.overflow === "visible") continue;
      const p = up.getBoundingClientRect();
      if (r.left < p.left - 1 || r.right > p.right + 1) return false;
    }
    return r.left >= 0 && r.right <= window.innerWidth;
  });
}
