// Runs the integration suite (out/vscode/index.js) inside a real VS Code: code-server
// 4.100.3 (VS Code 1.100.3) on loopback, opened by headless Chromium, with the simulator
// (test control on) as the service. Prints every result, the VS Code version, and a closing
// `N passed, N failed` line; exits non-zero on any failure, on zero tests or on a hang.
//
//   npm run test:vscode                 (builds first)
//   GPU_RENTAL_TEST_GREP=smoke …        only tests whose name contains the text
//   GPU_RENTAL_TEST_TIMEOUT_S=900       overall timeout in seconds (the default)
//
// UI steps: a test calls uiCheckpoint(name) (suite/framework.ts); this runner then runs
// uiSteps[name] with Playwright on the real workbench, counts it as a test, and writes
// `<results>.<name>.done` so the suite continues.
import { existsSync, mkdirSync, readFileSync, writeFileSync, cpSync, mkdtempSync, rmSync, openSync, fstatSync, readSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { root, startCodeServer, launchChromium, workbenchUrl, runCleanups } from '../../scripts/code-server.mjs';
import { simArgs, startSimulatorProcess } from '../../scripts/sim-process.mjs';
import { printRecord, printTest, parseLines, summarize } from './report.mjs';
import { openViewContainer, expandPane, pane, waitForRows, hoverText, terminalText } from '../../scripts/workbench-ui.mjs';
import { inTempHome, tempHome } from '../../scripts/test-home.mjs';

const OVERALL_MS = Number(process.env.GPU_RENTAL_TEST_TIMEOUT_S || 900) * 1000;
const START_MS = 120_000; // page open → suite's first record
const QUIET_MS = 60_000; // longest silence allowed between records outside a test
const screenshotDir = join(root, 'screenshots');
const resultsDir = join(root, 'test-results');

// package.json as VS Code shows it: "%key%" strings resolved from package.nls.json.
const nls = existsSync(join(root, 'package.nls.json')) ? JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) : {};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'), (_k, v) =>
  typeof v === 'string' && /^%[^%]+%$/.test(v) && v.slice(1, -1) in nls ? nls[v.slice(1, -1)] : v,
);
const cleanups = [];
let finished = false;

const cleanup = () => runCleanups(cleanups);

function fail(message, code = 1) {
  if (finished) return;
  finished = true;
  process.stdout.write(`\nERROR: ${message}\n`);
  cleanup().finally(() => process.exit(code));
}

process.on('SIGINT', () => fail('interrupted', 130));
process.on('SIGTERM', () => fail('terminated', 143));
process.on('unhandledRejection', (e) => fail(`unexpected error: ${e?.stack ?? e}`));
const overall = setTimeout(() => fail(`timed out after ${OVERALL_MS / 1000} s (hang?)`), OVERALL_MS);

// ---------------------------------------------------------------- UI steps (Playwright)

const ui = { page: undefined, results: [] };

function containerTitle() {
  const c = (pkg.contributes?.viewsContainers?.activitybar ?? []).find((v) => v.id === 'gpuRental');
  return c?.title ?? 'GPU Rental';
}

function welcomeTexts() {
  // First words of each viewsWelcome entry, without markdown links' targets.
  return (pkg.contributes?.viewsWelcome ?? [])
    .filter((w) => String(w.view).startsWith('gpuRental.'))
    .map((w) =>
      String(w.contents)
        .split('\n')[0]
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .trim()
        .slice(0, 40),
    )
    .filter(Boolean);
}

async function shot(name) {
  mkdirSync(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name}.png`);
  await ui.page.screenshot({ path: file });
  return file;
}

const openSidebar = () => openViewContainer(ui.page, containerTitle(), 20_000);

async function openWalkthroughPage() {
  const steps = ui.page.locator('button.getting-started-step[data-step-id*="gettingStarted"]');
  await steps.first().waitFor({ state: 'attached', timeout: 30_000 });
  // The Welcome page may show its start slide: open the walkthrough from its tile. Whichever shows
  // first decides (a blind click on a tile that is not there waited out its 5 s timeout each time).
  const tile = ui.page.locator('.getting-started-category:visible, button:visible', { hasText: 'Get Started with GPU Rental' }).first();
  const shown = ui.page.locator('button.getting-started-step[data-step-id*="gettingStarted"]:visible').first();
  await shown
    .or(tile)
    .first()
    .waitFor({ state: 'visible', timeout: 10_000 })
    .catch(() => undefined);
  if (!(await shown.isVisible())) await tile.click({ timeout: 5_000 }).catch(() => undefined);
  await ui.page.waitForTimeout(500);
}

/** Clicks each step, then its button; the command's prompt is answered by the suite (or Escape here). */
async function clickStepButtons(buttons) {
  for (const [id, label] of Object.entries(buttons)) {
    const step = ui.page.locator(`button.getting-started-step[data-step-id$="#${id}"]`).first();
    await step.scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => undefined);
    await step.click({ force: true, timeout: 10_000 });
    await ui.page.waitForTimeout(300);
    await step.locator('.button-container .monaco-button', { hasText: label }).first().click({ force: true, timeout: 10_000 });
    await ui.page.waitForTimeout(500);
    await ui.page.keyboard.press('Escape'); // any quick input the command opened
  }
}

/** Step id -> aria-checked of the steps shown. */
async function walkthroughState() {
  const state = {};
  for (const el of await ui.page.locator('button.getting-started-step[data-step-id*="gettingStarted"]').all()) {
    if (!(await el.isVisible())) continue;
    const id = String(await el.getAttribute('data-step-id'))
      .split('#')
      .pop();
    state[id] = await el.getAttribute('aria-checked');
  }
  return state;
}

async function waitForTicks(want, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const state = await walkthroughState();
    if (want.every((w) => state[w] === 'true') || Date.now() > deadline) return state;
    await ui.page.waitForTimeout(250);
  }
}

/** The sidebar's width before the guard walk widened it (restored at its end). */
let sidebarWidth;

/** The idle guard's warning on screen. */
async function guardWarning() {
  const toast = ui.page.locator('.notification-toast', { hasText: 'idle guard will stop' }).first();
  await toast.waitFor({ state: 'visible', timeout: 20_000 });
  await ui.page.waitForTimeout(300);
  return toast;
}

/** No idle guard warning left in the workbench (toasts and the notification centre): a withdrawn one is closed. */
async function noStaleWarning() {
  const stale = ui.page.locator('.notification-list-item', { hasText: 'idle guard will' });
  await stale
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(async () => {
      throw new Error(`a withdrawn guard warning is still shown: ${JSON.stringify(await stale.allInnerTexts())}`);
    });
}

/** Drags the sidebar's edge so it is `width` px wide (the guard's words are at the end of a long row). */
async function sidebarTo(width) {
  const box = await ui.page.locator('.part.sidebar').first().boundingBox();
  if (!box) throw new Error('no sidebar to resize');
  sidebarWidth ??= box.width;
  const y = box.y + box.height / 2;
  await ui.page.mouse.move(box.x + box.width - 1, y);
  await ui.page.mouse.down();
  await ui.page.mouse.move(box.x + width, y, { steps: 8 });
  await ui.page.mouse.up();
  await ui.page.waitForTimeout(300);
}

/** The walk's instance row in the Instances view, once its description contains `text`. */
async function guardRow(text) {
  await openSidebar();
  await expandPane(ui.page, 'Instances').catch(() => undefined);
  const row = ui.page.locator('.monaco-list-row').filter({ hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  await ui.page.mouse.move(1100, 820); // no hover: the row as it normally looks, no tooltip over the picture
  await ui.page.waitForTimeout(300);
  return row;
}

const uiSteps = {
  /** Signed out: the sidebar shows the sign-in welcome. */
  'signed-out': async () => {
    await openSidebar();
    const expected = welcomeTexts();
    if (!expected.length) throw new Error('package.json has no viewsWelcome for the gpuRental views');
    const welcome = ui.page.locator('.sidebar .welcome-view-content');
    await welcome.first().waitFor({ state: 'visible', timeout: 20_000 });
    const text = (await welcome.allInnerTexts()).join('\n');
    await shot('signed-out');
    if (!expected.some((t) => text.includes(t.slice(0, 20)))) {
      throw new Error(`welcome view shows "${text.slice(0, 200)}", expected one of: ${expected.map((t) => `"${t}"`).join(', ')}`);
    }
  },
  /** Signed out: no view toolbar offers an action that needs an account (issue 35: actions only where they work). */
  'ux-signed-out-toolbar': async () => {
    await openSidebar();
    await ui.page.locator('.sidebar .welcome-view-content').first().waitFor({ state: 'visible', timeout: 20_000 });
    const header = ui.page.locator('.sidebar .pane-header', { hasText: 'Instances' }).first();
    await header.hover();
    await ui.page.waitForTimeout(300);
    await shot('ux-signed-out-toolbar');
    const labels = await ui.page
      .locator('.sidebar .pane-header .actions .action-label')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
    const needAccount = (pkg.contributes?.commands ?? [])
      .filter((c) => (pkg.contributes?.menus?.['view/title'] ?? []).some((m) => m.command === c.command && /gpuRental\.signedIn/.test(m.when ?? '')))
      .map((c) => c.title);
    const shown = labels.filter((l) => needAccount.some((t) => l.startsWith(t)));
    if (shown.length) throw new Error(`signed out, the view toolbars still show: ${shown.join(', ')}`);
  },
  /** Signed in with the simulator key: instance and offer rows appear. */
  'signed-in': async () => {
    await openSidebar();
    const names = (pkg.contributes?.views?.gpuRental ?? []).map((v) => v.name);
    for (const n of names) await expandPane(ui.page, n);
    const want = names.filter((n) => /instances|offers/i.test(n));
    if (want.length < 2) throw new Error(`no Instances/Offers views in [${names.join(', ')}]`);
    const counts = await waitForRows(ui.page, want, { min: 1, timeoutMs: 30_000 });
    await ui.page.waitForTimeout(300);
    await shot('signed-in');
    const empty = Object.entries(counts).filter(([, n]) => n < 1);
    if (empty.length) throw new Error(`no rows in ${empty.map(([v]) => v).join(' and ')} (rows: ${JSON.stringify(counts)})`);
  },
  /** An instance's log document, with Refresh and Follow in its editor title (screenshot for the README). */
  'instance-logs': async () => {
    await ui.page.locator('.monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(500);
    await shot('instance-logs');
  },
  /** A host's price increase: the marked row, the status bar count and the notification with Accept / Reject / Details. */
  'price-increase': async () => {
    await openSidebar();
    await expandPane(ui.page, 'Instances').catch(() => undefined);
    await ui.page.locator('.monaco-list-row', { hasText: 'price +' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    const toast = ui.page.locator('.notification-toast', { hasText: 'raises its price' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.locator('.statusbar-item', { hasText: 'price increase' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await ui.page.waitForTimeout(300);
    await shot('price-increase');
    // no money decision in one click: the toast's only button is Review…
    const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    if (buttons.join('|') !== 'Review…') throw new Error(`price increase toast buttons: ${buttons.join(', ')}`);
  },
  /** The budget warning: this month's charges against gpuRental.budget.monthly, with the projection. */
  'budget-warning': async () => {
    await ui.page.locator('.notification-toast', { hasText: 'monthly budget' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(300);
    await shot('budget-warning');
  },
  /** One truth for money: the Account view's credit and the status bar tooltip's, both "as of" one read. */
  'money-truth': async () => {
    // The suite focused the Account view; hover the cost item for its tooltip.
    const item = ui.page.locator('.statusbar-item', { hasText: 'running' }).first();
    await item.waitFor({ state: 'visible', timeout: 20_000 });
    await item.hover();
    await ui.page
      .locator('.monaco-hover', { hasText: 'Credit' })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 })
      .catch(() => undefined);
    await ui.page.waitForTimeout(300);
    await shot('money-truth');
  },
  /** A stopped instance that still bills for storage, flagged on its row. */
  'stopped-storage': async () => {
    await openSidebar();
    await ui.page.locator('.monaco-list-row', { hasText: '/month' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(300);
    await shot('stopped-storage');
  },
  /** Try Demo Mode: the pending increase's toast offers only Review…, and no demo notice lands beside it. */
  'demo-price-increase': async () => {
    await openSidebar();
    const toast = ui.page.locator('.notification-toast', { hasText: 'raises its price' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(300);
    await shot('demo-price-increase');
    const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    if (buttons.join('|') !== 'Review…') throw new Error(`price increase toast buttons: ${buttons.join(', ')}`);
    const notice = await ui.page.locator('.notification-toast', { hasText: 'Demo mode' }).count();
    if (notice) throw new Error('the demo notice shows beside the price increase');
  },
  /** Several stopped instances that bill for storage: ONE notification, whose only decision is Review…. */
  'stopped-storage-notice': async () => {
    const toasts = ui.page.locator('.notification-toast', { hasText: 'bill for storage' });
    await toasts.first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(300);
    await shot('stopped-storage-notice');
    const n = await toasts.count();
    if (n !== 1) throw new Error(`${n} storage notifications, not one`);
    const buttons = (await toasts.first().locator('.monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    if (buttons.join('|') !== "Review…|Don't Show Again") throw new Error(`buttons: ${buttons.join(', ')}`);
  },
  /** The walkthrough: its step buttons only open commands (answered with Escape), and nothing ticks for that. */
  'walkthrough-opened-only': async () => {
    await openWalkthroughPage();
    await clickStepButtons({ searchOffers: 'Search Offers with a Query', sshKey: 'Add SSH Key', createFromTemplate: 'Create Instance from Template' });
    await ui.page.waitForTimeout(2500); // the key check after a sign-in and any context change have landed
    const state = await walkthroughState();
    await shot('walkthrough-opened-only');
    const ticked = ['searchOffers', 'sshKey', 'createFromTemplate'].filter((id) => state[id] === 'true');
    if (ticked.length) throw new Error(`ticked although nothing was done: ${ticked.join(', ')} (${JSON.stringify(state)})`);
    if (state.apiKey !== 'true') throw new Error(`signed in, but "apiKey" is not ticked (${JSON.stringify(state)})`);
  },
  /** The walkthrough after the real outcomes: every step checked (Connect and Stop by their buttons). */
  walkthrough: async () => {
    await openWalkthroughPage();
    const want = ['apiKey', 'sshKey', 'searchOffers', 'createFromTemplate', 'connect', 'stop'];
    await clickStepButtons({ stop: 'Stop Instance' });
    const state = await waitForTicks(want);
    await shot('walkthrough');
    const ids = Object.keys(state);
    if (ids.length !== 6) throw new Error(`the walkthrough shows ${ids.length} steps (${ids.join(', ')}), expected 6`);
    const open = want.filter((w) => state[w] !== 'true');
    if (open.length) throw new Error(`steps not completed: ${open.join(', ')} (${JSON.stringify(state)})`);
  },
  /** The walkthrough in the demo: all six steps stay (the count the description gives), the sign-in step ticked; the key the demo registered ticks its step. */
  'walkthrough-demo': async () => {
    await openWalkthroughPage();
    const state = await waitForTicks(['apiKey', 'sshKey']);
    await shot('walkthrough-demo');
    if (Object.keys(state).length !== 6)
      throw new Error(`the demo's walkthrough shows ${Object.keys(state).length} steps, expected 6 (${JSON.stringify(state)})`);
    if (state.apiKey !== 'true') throw new Error(`the demo is signed in, but "apiKey" is not ticked (${JSON.stringify(state)})`);
    if (state.sshKey !== 'true') throw new Error(`the demo registered a key, but "sshKey" is not ticked (${JSON.stringify(state)})`);
  },
  /** Connect's terminal fallback: ssh logged in to the simulated instance (screenshot for the README). */
  'connect-terminal': async () => {
    const term = ui.page.locator('.terminal-wrapper .xterm, .xterm').first();
    await term.waitFor({ state: 'visible', timeout: 20_000 });
    // The suite printed this line from inside the instance; wait until the terminal shows it.
    const text = ui.page.locator('.xterm-rows, .xterm-accessibility-tree').getByText('Connected: a shell on the simulated instance').first();
    await text.waitFor({ state: 'attached', timeout: 3_000 }).catch(() => undefined); // the canvas renderer has no text to find
    await ui.page.waitForTimeout(800);
    await shot('connect-terminal');
  },
  /** Run on Group: one terminal, each line prefixed with its rank (screenshot for docs/multi-node.md). */
  'group-run': async () => {
    const term = ui.page.locator('.terminal-wrapper .xterm, .xterm').first();
    await term.waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(800);
    await shot('group-run');
  },
  /** The 2FA authenticator-app setup webview shows its QR code (screenshot for the README). */
  'tfa-qr': async () => {
    const frame = ui.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.getByText('Add an authenticator app').first().waitFor({ state: 'visible', timeout: 30_000 });
    const qr = frame.locator('svg, canvas, img').first();
    await qr.waitFor({ state: 'visible', timeout: 10_000 });
    await ui.page.waitForTimeout(300);
    await shot('tfa-qr');
  },
  /** A long generated label: the row shortens it and "stopped $x/h" stays inside the visible row. */
  'instances-long-label': async () => {
    await openSidebar();
    const row = ui.page.locator('.monaco-list-row', { hasText: 'ch-z80p' }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    await ui.page.mouse.move(700, 700); // no hover: the row as it normally looks
    await ui.page.waitForTimeout(300);
    await shot('instances-long-label');
    const r = await row.evaluate((el) => {
      const desc = el.querySelector('.label-description');
      const box = el.closest('.monaco-list') ?? el; // what the tree shows (its rows are clipped to it)
      const name = el.querySelector('.label-name')?.textContent ?? '';
      const text = desc?.textContent ?? '';
      const node = desc?.firstChild;
      const price = /\/h/.exec(text);
      if (!node || !text.startsWith('stopped') || !price) return { name, text, visible: false };
      const range = document.createRange();
      range.setStart(node, 0); // from "stopped" ...
      range.setEnd(node, price.index + 2); // ... to the end of the price
      return { name, text, visible: range.getBoundingClientRect().right <= box.getBoundingClientRect().right + 0.5 };
    });
    if (r.name !== 'demo…ch-z80p') throw new Error(`the row label reads "${r.name}"`);
    if (!/^stopped <?\$\d+\.\d\d\/h/.test(r.text)) throw new Error(`the row description reads "${r.text}"`);
    if (!r.visible) throw new Error(`price and "stopped" are cut off at the default sidebar width: "${r.text}"`);
  },
  /**
   * Search Offers as one list: pick "Minimum GPU RAM" and type 24, pick "Minimum host reliability"
   * and type 0.98, type "maybe" at "Verified hosts" (refused with a reason; Escape goes back to the
   * list), then Search; the Offers view shows the results.
   */
  'search-list': async () => {
    const widget = ui.page.locator('.quick-input-widget');
    const input = widget.locator('input.input').first();
    const title = (text) => widget.locator('.quick-input-title', { hasText: text }).first().waitFor({ state: 'visible', timeout: 15_000 });
    const listShows = async (label, value) => {
      const row = widget.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
      await row.waitFor({ state: 'visible', timeout: 15_000 });
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      if (!text.includes(value)) throw new Error(`the list row "${label}" reads "${text}", not "${value}"`);
    };
    const open = async (label) => {
      await title(/^GPU Rental: Search Offers$/);
      await input.fill(label);
      await ui.page.waitForTimeout(200);
      await ui.page.keyboard.press('Enter');
      await title(`Search Offers: ${label}`);
    };
    await title(/^GPU Rental: Search Offers$/);
    await ui.page.waitForTimeout(300);
    await shot('search-list');
    await open('Minimum GPU RAM');
    const placeholder = await input.getAttribute('placeholder');
    if (!placeholder) throw new Error('the GPU RAM input box has no placeholder');
    await input.fill('24');
    await ui.page.keyboard.press('Enter');
    await listShows('Minimum GPU RAM', '24 GB');
    await open('Minimum host reliability');
    await input.fill('0.98');
    await ui.page.waitForTimeout(300);
    await ui.page.keyboard.press('Enter');
    await listShows('Minimum host reliability', '≥ 98%');
    await open('Verified hosts');
    await input.fill('maybe');
    await ui.page.waitForTimeout(300);
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForTimeout(500);
    await shot('search-typed-refused');
    const list = (await widget.locator('.quick-input-list').first().innerText()).replace(/\s+/g, ' ');
    if (!/is not one of the choices/.test(list)) throw new Error(`no reason shown for the refused answer: "${list.slice(0, 200)}"`);
    await ui.page.keyboard.press('Escape');
    await listShows('Verified hosts', 'Verified hosts only');
    await ui.page.waitForTimeout(300);
    await shot('search-list-edited');
    await input.fill('Search');
    await ui.page.waitForTimeout(200);
    await ui.page.keyboard.press('Enter');
    // Search shows the Offers view itself.
    await ui.page.locator('.monaco-list-row', { hasText: '/h' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(500);
    await shot('search-list-offers');
  },
  /** The list opens with the last search's values; Escape on it cancels. */
  'search-list-cancel': async () => {
    const widget = ui.page.locator('.quick-input-widget');
    await widget
      .locator('.quick-input-title', { hasText: /^GPU Rental: Search Offers$/ })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    const row = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Minimum GPU RAM' }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    await ui.page.keyboard.press('Escape');
    if (!text.includes('24 GB')) throw new Error(`the list did not start from the last search: "${text}"`);
  },
  /** A destructive confirmation is on screen: Enter must answer Cancel. */
  'confirm-enter-cancels': async () => {
    const widget = ui.page.locator('.quick-input-widget, .monaco-dialog-box').first();
    await widget.waitFor({ state: 'visible', timeout: 15_000 });
    await ui.page.waitForTimeout(400);
    await shot('confirm-enter-cancels');
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForTimeout(500);
  },
  /** Show Instance Details, rendered: a table in a Markdown preview (screenshot). */
  'instance-details': async () => {
    const frame = ui.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('table').first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.waitForTimeout(400);
    await shot('instance-details');
  },
  /** An instance expanded in the sidebar: its fields named in words (issue 35, audit V6; screenshot). */
  'ux-details-words': async () => {
    await openSidebar();
    await expandPane(ui.page, 'Instances');
    const rows = pane(ui.page, 'Instances').locator('.monaco-list-row');
    const row = pane(ui.page, 'Instances').locator('.monaco-list-row[aria-expanded]').first();
    await row.waitFor({ state: 'visible', timeout: 20_000 });
    if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
    await rows.filter({ hasText: 'Instance ID' }).first().waitFor({ state: 'visible', timeout: 20_000 });
    await ui.page.mouse.move(1100, 820); // no tooltip over the picture
    await ui.page.waitForTimeout(300);
    await shot('ux-details-words');
  },
  /** The backup codes view: Save to File… (the suite records where the dialog would open), then close it. */
  'backup-codes-save': async () => {
    const frame = ui.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('#save').waitFor({ state: 'visible', timeout: 30_000 });
    await shot('backup-codes');
    await frame.locator('#save').click();
    await ui.page.waitForTimeout(800);
    await frame.locator('#done').click();
  },
  /** An ssh LocalForward is listening: no "Your application running on port N is available" toast within 12 s. */
  'no-port-popup': async () => {
    const toast = ui.page.locator('.notifications-toasts .notification-toast', { hasText: /is available|running on port/ }).first();
    const seen = await toast.waitFor({ state: 'visible', timeout: 12_000 }).then(
      () => true,
      () => false,
    );
    await shot('no-port-popup');
    if (seen) throw new Error(`a port popup appeared: "${(await toast.innerText()).replace(/\s+/g, ' ').slice(0, 200)}"`);
  },
  /** README picture: a creation in progress (the notification with its stage and clock, the new row loading). */
  'readme-create-progress': async () => {
    await openSidebar();
    await ui.page.locator('.notifications-toasts', { hasText: 'PyTorch on one RTX 4090' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await ui.page.mouse.move(700, 500);
    await ui.page.waitForTimeout(300);
    await shot('readme-create-progress');
  },
  /** README picture: the created instance running, its tooltip (cost so far) and the Connect offer. */
  'readme-running-instance': async () => {
    await openSidebar();
    await ui.page.locator('.notifications-toasts', { hasText: 'is running' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    const row = ui.page.locator('.monaco-list-row', { hasText: /pytorch-/ }).first();
    await hoverText(ui.page, row);
    await ui.page.waitForTimeout(400);
    await shot('readme-running-instance');
  },
  /** An agent's rent (vscode.lm.invokeTool) in the Instances view as a click's: the running row (screenshot agent-rented.png). */
  'agent-rented': async () => {
    await openSidebar();
    const row = ui.page.locator('.monaco-list-row', { hasText: /\/h · 1× RTX 4090/ }).first(); // its label is cut short in the middle
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    await hoverText(ui.page, row);
    await ui.page.waitForTimeout(400);
    await shot('agent-rented');
  },
  /** Demo: the QR view shows the code an app would show; "Use This Code" and Verify turn the app on. */
  'tfa-demo-qr': async () => {
    const frame = ui.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.getByText('Add an authenticator app').first().waitFor({ state: 'visible', timeout: 30_000 });
    const demo = frame.locator('#demo-code');
    await demo.waitFor({ state: 'visible', timeout: 10_000 });
    const code = (await demo.innerText()).trim();
    if (!/^\d{6}$/.test(code)) throw new Error(`the demo code reads "${code}"`);
    await frame.locator('#use-demo').click();
    await frame.locator('#label').fill('Demo phone');
    await ui.page.waitForTimeout(300);
    await shot('tfa-demo-qr');
    const typed = await frame.locator('#code').inputValue();
    if (typed !== code) throw new Error(`"Use This Code" put "${typed}" into the code field, not "${code}"`);
    await frame.locator('#verify').click();
  },
  /** Idle guard walk (suite/guard.test.ts): the row says the guard watches a busy GPU. */
  'guard-watching': async () => {
    await openSidebar();
    await sidebarTo(760);
    await guardRow('guard: watching · busy');
    await shot('guard-watching');
  },
  /** Idle guard walk: a terminal open on the instance, GPU idle: the row says the session keeps it busy. */
  'guard-terminal-open': async () => {
    await guardRow('busy (ssh'); // Playwright matches text case-insensitively: "SSH session" or "ssh 1"
    await shot('guard-terminal-open');
  },
  /** Idle guard walk: the row's context menu → Set Demo GPU Load… → Idle (0 %), as a user does it. */
  'guard-set-idle': async () => {
    const row = await guardRow('guard: watching');
    await row.click({ button: 'right' });
    const item = ui.page.locator('.monaco-menu .action-item', { hasText: 'Set Demo GPU Load' }).first();
    await item.waitFor({ state: 'visible', timeout: 10_000 });
    await shot('guard-menu');
    await item.click();
    const widget = ui.page.locator('.quick-input-widget');
    const idle = widget.locator('.monaco-list-row', { hasText: 'Idle (0 %)' }).first();
    await idle.waitFor({ state: 'visible', timeout: 10_000 });
    await ui.page.waitForTimeout(200);
    await shot('guard-set-load');
    const offered = (await widget.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    await idle.click();
    if (!['Idle (0 %)', 'Busy (90 %)', 'Custom'].every((c) => offered.some((o) => o.includes(c))))
      throw new Error(`the load choices read ${JSON.stringify(offered)}`);
  },
  /** Idle guard walk: the warning (a notification the guard can take back) with its links. */
  'guard-warning': async () => {
    const toast = await guardWarning();
    await shot('guard-warning');
    const links = (await toast.locator('a').allInnerTexts()).map((t) => t.trim());
    if (!['Keep Running 1 h', 'Stop Now', "Don't Warn Again"].every((l) => links.includes(l)))
      throw new Error(`the warning offers the links ${JSON.stringify(links)}`);
  },
  /** Idle guard walk: busy again, the warning withdrawn: it is gone from the page. */
  'guard-warning-withdrawn': async () => {
    await noStaleWarning();
  },
  /** Idle guard walk: the new idle stretch's warning; its Keep Running 1 h link is clicked. */
  'guard-keep-running': async () => {
    const toast = await guardWarning();
    await toast.locator('a', { hasText: 'Keep Running 1 h' }).first().click();
  },
  /** Idle guard walk: the row after Keep Running; the warning is gone (withdrawn: closed, not left stale). */
  'guard-kept-running': async () => {
    await guardRow('kept running until');
    await noStaleWarning();
    await shot('guard-kept-running');
  },
  /** Idle guard walk: Show Idle Guard Log's document. */
  'guard-log': async () => {
    await ui.page.locator('.monaco-editor .view-lines', { hasText: 'Idle guard log of' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await ui.page.waitForTimeout(300);
    await shot('guard-log');
  },
  /** Idle guard walk: the stopped row says its guard stopped it. */
  'guard-stopped': async () => {
    await guardRow('stopped by its idle guard');
    // The one notice of what it did, with Start and Show Guard Log.
    const toast = ui.page.locator('.notification-toast', { hasText: 'The idle guard stopped' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
    if (!buttons.includes('Start') || !buttons.includes('Show Guard Log')) throw new Error(`the notice offers ${JSON.stringify(buttons)}`);
    await noStaleWarning();
    await ui.page.waitForTimeout(300);
    await shot('guard-stopped');
    if (sidebarWidth) await sidebarTo(sidebarWidth); // as the later files' pictures expect it
  },
  /** A failed ssh in the integrated terminal: its own message and one sentence of what to do stay on screen. */
  'ssh-terminal-failure': async () => {
    let text = '';
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      text = await terminalText(ui.page);
      if (/Press Enter to close/.test(text)) break;
      await ui.page.waitForTimeout(250);
    }
    await shot('ssh-terminal-failure');
    // The simulator's instances run real SSH servers that accept only the account's keys: without one, ssh is refused.
    if (!/Connection refused|Permission denied \(publickey/.test(text))
      throw new Error(`the terminal does not show ssh's own error; it shows: "${text.slice(-300)}"`);
    if (!/Nothing accepts SSH connections at that address yet|The instance did not accept your SSH key/.test(text))
      throw new Error(`no advice in the terminal: "${text.slice(-300)}"`);
    if (!/Press Enter to close this terminal/.test(text)) throw new Error('the terminal does not wait for Enter');
  },
};

async function runUiStep(name, resultsFile) {
  const t0 = Date.now();
  let verdict = 'ok';
  const step = uiSteps[name];
  try {
    if (!step) throw new Error(`no UI step named "${name}" in runner.mjs`);
    await step();
  } catch (e) {
    verdict = String(e?.message ?? e).split('\n')[0];
    try {
      await shot(`failed-${name}`);
    } catch {}
  }
  const rec = {
    name: `ui › ${name}`,
    status: verdict === 'ok' ? 'passed' : 'failed',
    durationMs: Date.now() - t0,
    error: verdict === 'ok' ? undefined : verdict,
  };
  ui.results.push(rec);
  printTest(rec);
  writeFileSync(`${resultsFile}.${name}.done`, verdict);
}

// ---------------------------------------------------------------- main

/** The complete lines appended to `file` since the last read ('' while it does not exist); reads only the new bytes. */
function followLines(file) {
  let fd;
  let offset = 0;
  return {
    read() {
      try {
        fd ??= openSync(file, 'r');
      } catch {
        return ''; // not yet
      }
      const size = fstatSync(fd).size;
      if (size <= offset) return '';
      const bytes = Buffer.alloc(size - offset);
      const n = readSync(fd, bytes, 0, bytes.length, offset);
      const end = bytes.subarray(0, n).lastIndexOf(0x0a) + 1;
      offset += end;
      return bytes.subarray(0, end).toString('utf8');
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

async function main() {
  const t0 = Date.now();
  const testsIndex = process.env.GPU_RENTAL_TEST_BUNDLE ? resolve(process.env.GPU_RENTAL_TEST_BUNDLE) : join(root, 'out', 'vscode', 'index.js');
  if (!existsSync(join(root, pkg.main ?? 'dist/extension.js'))) throw new Error('dist/extension.js is missing: run `node scripts/build.mjs` first');
  if (!existsSync(testsIndex)) throw new Error('out/vscode/index.js is missing: run `node scripts/build.mjs` first');

  const work = mkdtempSync(join(tmpdir(), 'gpu-rental-vscode-test-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  // Everything this tier starts (the simulator, code-server, Chromium) sees a temporary home, also
  // when the runner is started by hand rather than by npm test.
  if (!inTempHome()) {
    const home = tempHome();
    Object.assign(process.env, home.env);
    cleanups.push(() => home.cleanup());
  }
  const resultsFile = join(work, 'results.jsonl');
  const workspace = join(work, 'workspace');
  cpSync(join(root, 'test', 'vscode', 'workspace'), workspace, { recursive: true });

  const sim = await startSimulatorProcess({ testControl: true, args: simArgs() });
  cleanups.push(() => sim.stop());
  process.stdout.write(`simulator: ${sim.url} (test control on)\n`);

  mkdirSync(screenshotDir, { recursive: true });
  const cs = await startCodeServer({
    env: {
      GPU_RENTAL_TEST_SIM_URL: sim.url,
      GPU_RENTAL_TEST_RESULTS: resultsFile,
      GPU_RENTAL_TEST_SCREENSHOT_DIR: screenshotDir,
      GPU_RENTAL_TEST_UI: '1',
      ...(process.env.GPU_RENTAL_TEST_GREP ? { GPU_RENTAL_TEST_GREP: process.env.GPU_RENTAL_TEST_GREP } : {}),
    },
    // The suites script unattended calls (skipConfirmation, confirm: false): allowed explicitly, as a user would.
    // The DOM renderer, so UI steps can read the terminal's text.
    settings: { 'gpuRental.apiBaseUrl': sim.url, 'gpuRental.scripting.allowUnattended': true, 'terminal.integrated.gpuAcceleration': 'off' },
    logFile: join(work, 'code-server.log'),
  });
  cleanups.push(() => cs.stop());
  process.stdout.write(`code-server: ${cs.url} (pid ${cs.pid})\n`);

  const chrome = await launchChromium();
  cleanups.push(() => chrome.close());
  const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 } });
  ui.page = page;
  const consoleLines = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleLines.push(m.text().slice(0, 300));
  });
  const url = workbenchUrl(cs.url, cs.port, { folder: workspace, extensionDevelopmentPath: root, extensionTestsPath: testsIndex });
  await page.goto(url, { waitUntil: 'domcontentloaded' });

  // Follow the results file.
  const results = followLines(resultsFile);
  cleanups.push(() => results.close());
  let started = false;
  let end;
  const tests = [];
  const metrics = [];
  const openedAt = Date.now();
  let quietUntil = Infinity;
  let testDeadline = 0;
  const hooks = 15_000 * 4; // afterEach hooks (HOOK_TIMEOUT_MS each in framework.ts), a few per run
  const afterEachBudget = hooks + QUIET_MS;
  while (!end) {
    if (finished) return;
    for (const rec of parseLines(results.read())) {
      // A suite that stops writing (extension host crashed, a hook hung) fails fast instead of
      // waiting for the overall timeout: each test announces its own timeout in 'begin'.
      if (rec.type === 'begin') testDeadline = Date.now() + rec.timeoutMs + afterEachBudget;
      else if (rec.type === 'test') testDeadline = 0;
      quietUntil = Math.max(testDeadline, Date.now() + QUIET_MS);
      const t = printRecord(rec, openedAt);
      if (t) tests.push(t);
      if (rec.type === 'start') started = true;
      else if (rec.type === 'metric') metrics.push(rec);
      else if (rec.type === 'checkpoint') await runUiStep(rec.name, resultsFile);
      else if (rec.type === 'end') end = rec;
    }
    if (started && Date.now() > quietUntil) {
      await shot('failed-hang').catch(() => {});
      throw new Error(`the suite stopped reporting (last test did not finish in time; extension host crashed?) — see screenshots/failed-hang.png`);
    }
    if (!started && Date.now() - openedAt > START_MS) {
      const log = readFileSync(cs.logFile, 'utf8').split('\n').slice(-25).join('\n');
      await shot('failed-start').catch(() => {});
      throw new Error(
        `the suite did not start within ${START_MS / 1000} s of opening the workbench (extension host or test bundle failed?)\n` +
          `code-server log tail:\n${log}\nbrowser console errors:\n${consoleLines.slice(-10).join('\n')}`,
      );
    }
    // Each checkpoint waits for this loop: a short poll (reading only what was appended) keeps the hand-overs quick.
    if (!end) await new Promise((r) => setTimeout(r, 50));
  }

  await openSidebar().catch(() => {}); // the final picture shows the extension's sidebar
  await page.waitForTimeout(500);
  const final = await shot('workbench');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'vscode-results.jsonl'), readFileSync(resultsFile, 'utf8'));
  writeFileSync(join(resultsDir, 'vscode-metrics.json'), JSON.stringify(Object.fromEntries(metrics.map((m) => [m.name, m.value])), null, 2) + '\n');

  process.stdout.write(`\nscreenshot: ${final}\nresults: ${join(resultsDir, 'vscode-results.jsonl')} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  const { passed, failed } = summarize([...tests, ...ui.results]);
  if (failed > 0) process.stdout.write(`\nthe simulator's last lines (SSH listeners and their problems):\n${sim.recent().slice(-40).join('\n') || '(none)'}\n`);
  if (passed + failed === 0) throw new Error('no tests ran');
  return failed === 0;
}

main().then(
  async (ok) => {
    if (finished) return;
    finished = true;
    clearTimeout(overall);
    await cleanup();
    process.exit(ok ? 0 : 1);
  },
  (e) => fail(e?.stack ?? String(e)),
);
