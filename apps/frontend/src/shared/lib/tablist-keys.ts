/**
 * Keyboard of a tablist (WAI-ARIA tabs, automatic activation): arrows, Home and End move the focus
 * to another tab and select it. Bound on the element with `role="tablist"`.
 */
export function onTablistKeydown(event: KeyboardEvent): void {
  const list = event.currentTarget;
  if (!(list instanceof HTMLElement)) return;
  const tabs = [...list.querySelectorAll<HTMLElement>('[role="tab"]')];
  const at = tabs.findIndex((t) => t === document.activeElement);
  if (at < 0) return;
  const to = ({ ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 } as Record<string, number | undefined>)[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const tab = tabs[(to + tabs.length) % tabs.length];
  tab?.focus();
  tab?.click();
}
