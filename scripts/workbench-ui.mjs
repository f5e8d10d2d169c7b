// Playwright steps on the real VS Code workbench, shared by the test runner and the demo check.

/** Clicks the activity-bar item whose label starts with `title` (unless its sidebar is already open). */
export async function openViewContainer(page, title, timeoutMs = 60_000) {
  const item = page.locator(`.activitybar .action-item a[aria-label^="${title}"], .activitybar .action-item .action-label[aria-label^="${title}"]`).first();
  await item.waitFor({ state: 'visible', timeout: timeoutMs });
  const open = await page.locator('.sidebar .composite.title h2').first().textContent({ timeout: 2000 }).catch(() => '');
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
