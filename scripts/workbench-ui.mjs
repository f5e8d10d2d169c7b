// Playwright steps on the real VS Code workbench, shared by the test runner and the demo check.

/** Clicks the activity-bar item whose label starts with `title` (unless its sidebar is already open). */
export async function openViewContainer(page, title, timeoutMs = 60_000) {
  const item = page.locator(`.activitybar .action-item a[aria-label^="${title}"], .activitybar .action-item .action-label[aria-label^="${title}"]`).first();
  await item.waitFor({ state: 'visible', timeout: timeoutMs });
  const open = await page
    .locator('.sidebar .composite.title h2')
    .first()
    .textContent({ timeout: 2000 })
    .catch(() => '');
  if (!String(open).toLowerCase().includes(title.toLowerCase())) await item.click();
  await page.locator('.sidebar .pane-header').first().waitFor({ state: 'visible', timeout: 10_000 });
}

/** The sidebar pane (view) whose header starts with `viewName`. */
export function pane(page, viewName) {
  return page.locator(`.sidebar .pane:has(> .pane-header[aria-label^="${viewName}" i])`).first();
}

/** Expands a collapsed pane. */
export async function expandPane(page, viewName) {
  const header = pane(page, viewName).locator('> .pane-header');
  if ((await header.count()) && (await header.getAttribute('aria-expanded')) === 'false') await header.click();
}

/** Waits until every named pane shows at least `min` tree rows; returns { name: rowCount }. */
export async function waitForRows(page, viewNames, { min = 1, timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let counts = {};
  for (;;) {
    counts = {};
    for (const v of viewNames) counts[v] = await pane(page, v).locator('.monaco-list-row').count();
    if (Object.values(counts).every((n) => n >= min) || Date.now() > deadline) return counts;
    await page.waitForTimeout(250);
  }
}

/** Runs a command by its palette title (e.g. "GPU Rental: Destroy Instance…") through F1, as a user does. */
export async function runCommand(page, title, timeoutMs = 15_000) {
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = widget.locator('input.input').first();
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await input.fill(`>${title}`);
  const row = widget.locator('.monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: timeoutMs });
  await row.click();
}

/** Picks the quick-pick item whose text contains `text` (a string or RegExp) once the quick input shows it. */
export async function pickQuickItem(page, text, timeoutMs = 20_000) {
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: timeoutMs });
  await row.click();
}

/** A notification toast containing `text`. */
export function toast(page, text) {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
}

/** Hovers `row` until the workbench's hover shows (a hover starts when the pointer arrives); returns its text. */
export async function hoverText(page, row, attempts = 3) {
  const hover = page.locator('.monaco-hover, .workbench-hover').first();
  for (let attempt = 0; attempt < attempts && !(await hover.isVisible()); attempt++) {
    await page.mouse.move(700, 500); // away first
    await page.waitForTimeout(300);
    await row.hover({ position: { x: 60, y: 10 } });
    await hover.waitFor({ state: 'visible', timeout: 4000 }).catch(() => undefined);
  }
  await hover.waitFor({ state: 'visible', timeout: 2000 });
  return (await hover.innerText()).replace(/\s+/g, ' ');
}

/** Right-clicks `row` and runs the context-menu item labelled `label`. */
export async function contextMenu(page, row, label) {
  await row.click({ button: 'right' });
  const item = page.locator('.context-view .monaco-menu .action-item', { hasText: label }).first();
  await item.waitFor({ state: 'visible', timeout: 10_000 });
  await item.click();
  // VS Code 1.139 sometimes takes a click that lands while its menu is still settling as a hover only:
  // the menu stays open with the item highlighted. Enter then runs the highlighted item, as a user would.
  for (let i = 0; i < 3 && (await item.isVisible().catch(() => false)); i++) {
    await page.waitForTimeout(300);
    if (!(await item.isVisible().catch(() => false))) break;
    await item.hover();
    await page.keyboard.press('Enter');
  }
}

/** The text the (DOM-rendered) terminal shows, non-breaking spaces made plain. */
export async function terminalText(page) {
  const rows = page.locator('.terminal-wrapper.active .xterm-rows, .xterm .xterm-rows');
  return (await rows.allInnerTexts().catch(() => [])).join('\n').replace(/\u00a0/g, ' ');
}
