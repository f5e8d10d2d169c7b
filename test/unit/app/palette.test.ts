// Command Palette hygiene (issue 16): every command shows only where it can run, and every
// setting that points at a file or a URL says its scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, manifest } from '../repoRoot';

interface Pkg {
  contributes: {
    commands: Array<{ command: string; enablement?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    configuration: { properties: Record<string, { scope?: string; markdownDescription?: string; description?: string }> };
    walkthroughs?: Array<{
      id: string;
      steps: Array<{ id: string; when?: string; description: string; completionEvents?: string[]; media: { markdown?: string; image?: string } }>;
    }>;
  };
}
const pkg = manifest() as Pkg;

/** Commands that can run in any state, so they stay in the palette unconditionally (with why). */
const ALWAYS: Record<string, string> = {
  'gpuRental.showLog': 'the output channel always exists',
  'gpuRental.setupSshConfig': 'asks about the SSH config, needs no account',
  'gpuRental.setTemplateSecret': 'secrets are stored locally, needs no account',
};

test('every command is either in the palette only where it can run (a when clause) or deliberately always', () => {
  const palette = new Map(pkg.contributes.menus.commandPalette!.map((e) => [e.command, e.when]));
  const missing = pkg.contributes.commands.filter((c) => !palette.has(c.command) && !c.enablement && !(c.command in ALWAYS)).map((c) => c.command);
  assert.deepEqual(missing, [], 'add a commandPalette "when" (or enablement) for these, or list them in ALWAYS with the reason');
  for (const id of Object.keys(ALWAYS)) assert.ok(!palette.has(id), `${id} is listed as always available but has a palette entry`);
  for (const [id, when] of palette) assert.ok(when && when.trim(), `${id}: a commandPalette entry without "when" does nothing`);
  // the instance and offer commands need an account; the log document commands need a log document
  for (const id of [
    'gpuRental.showInstanceLogs',
    'gpuRental.rebootInstance',
    'gpuRental.recycleInstance',
    'gpuRental.changeBid',
    'gpuRental.searchOffersQuery',
    'gpuRental.browseServerTemplates',
  ])
    assert.equal(palette.get(id), 'gpuRental.signedIn', id);
  for (const id of ['gpuRental.refreshInstanceLogs', 'gpuRental.followInstanceLogs', 'gpuRental.stopFollowingInstanceLogs'])
    assert.match(palette.get(id) ?? '', /resourceScheme == gpu-rental-logs/, id);
});

test('settings that point at files or URLs say their scope', () => {
  const props = pkg.contributes.configuration.properties;
  const pointing = Object.keys(props).filter((k) => /(Url|File|Glob|Path|Dir)$/i.test(k));
  assert.ok(pointing.includes('gpuRental.apiBaseUrl') && pointing.includes('gpuRental.ssh.identityFile') && pointing.includes('gpuRental.templateGlob'));
  for (const k of pointing) {
    const p = props[k]!;
    assert.ok(p.scope, `${k} has no scope`);
    const text = p.markdownDescription ?? p.description ?? '';
    const says: Record<string, RegExp> = {
      application: /user settings only/i,
      machine: /machine setting/i,
      'machine-overridable': /machine setting/i,
      resource: /resource setting|each workspace folder/i,
      window: /window setting/i,
    };
    assert.ok(says[p.scope!]?.test(text), `${k} (scope ${p.scope}) does not say its scope in its description`);
  }
});

test('the walkthrough: six steps, each with a command button, a completion event and its media file', () => {
  const w = pkg.contributes.walkthroughs?.find((x) => x.id === 'gettingStarted');
  assert.ok(w, 'no gettingStarted walkthrough');
  assert.deepEqual(
    w.steps.map((s) => s.id),
    ['apiKey', 'sshKey', 'searchOffers', 'createFromTemplate', 'connect', 'stop'],
  );
  for (const s of w.steps) {
    assert.match(s.description, /\]\(command:gpuRental\.[\w.]+\)/, `${s.id} has no command button`);
    assert.ok(s.completionEvents?.length, `${s.id} has no completion event`);
    const media = s.media.markdown ?? s.media.image;
    assert.ok(media && readFileSync(join(repoRoot(), media), 'utf8').length > 0, `${s.id}: media ${media} missing`);
    // A picture per step, drawn in the theme's colours, with words for those who cannot see it.
    assert.match(s.media.image ?? '', /\.svg$/, `${s.id}: no SVG picture`);
    assert.ok(((s.media as { altText?: string }).altText ?? '').length > 40, `${s.id}: no altText`);
    assert.match(readFileSync(join(repoRoot(), s.media.image!), 'utf8'), /var\(--vscode-foreground/, `${s.id}: the picture ignores the theme`);
  }
  assert.ok(w.steps.find((s) => s.id === 'sshKey')!.description.includes('command:gpuRental.addSshKey'));
});

test('walkthrough steps complete on the outcome, not on opening a command; the demo hides the sign-in step', () => {
  const w = pkg.contributes.walkthroughs!.find((x) => x.id === 'gettingStarted')!;
  const step = (id: string) => w.steps.find((s) => s.id === id)!;
  // Opening Search Offers and pressing Escape, or picking a template without renting, completed these.
  for (const id of ['sshKey', 'searchOffers', 'createFromTemplate', 'connect']) {
    const events = step(id).completionEvents ?? [];
    assert.deepEqual(
      events.filter((e) => e.startsWith('onCommand:')),
      [],
      `${id} completes when its command merely runs`,
    );
    assert.ok(
      events.some((e) => e.startsWith('onContext:gpuRental.walkthrough.')),
      `${id}: no outcome context`,
    );
  }
  // Each outcome context is one the extension sets.
  const src = readFileSync(join(repoRoot(), 'src', 'core', 'vscode', 'walkthroughProgress.ts'), 'utf8');
  for (const s of w.steps)
    for (const e of s.completionEvents ?? [])
      if (e.startsWith('onContext:gpuRental.walkthrough.')) assert.ok(src.includes(`'${e.slice('onContext:'.length)}'`), `${e} is never set`);
  // The steps never change under the user (the description counts them): the demo ticks the sign-in step instead of hiding it.
  assert.deepEqual(
    w.steps.filter((x) => x.when).map((x) => x.id),
    [],
  );
  assert.ok(step('apiKey').completionEvents?.includes('onContext:gpuRental.signedIn'));
  assert.match(
    (pkg.contributes.walkthroughs![0] as unknown as { description: string }).description,
    new RegExp(`in ${['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'][w.steps.length]} steps`),
  );
});

test('view toolbars show only what works: every view/title action needs an account (or its own demo / 2FA-session key)', () => {
  const own: Record<string, RegExp> = { 'gpuRental.exitDemoMode': /\bgpuRental\.demo\b/, 'gpuRental.tfa.signOut': /\bgpuRental\.tfaSession\b/ };
  for (const m of pkg.contributes.menus['view/title']!) {
    assert.match(m.when ?? '', own[m.command] ?? /&& gpuRental\.signedIn\b/, `${m.command} in a view toolbar: ${m.when}`);
  }
});

test('every inline row action is also in the row context menu, so the keyboard reaches it', () => {
  const items = pkg.contributes.menus['view/item/context']!;
  const inline = items.filter((m) => (m as { group?: string }).group?.startsWith('inline'));
  const missing = inline.filter(
    (i) => !items.some((m) => m !== i && m.command === i.command && m.when === i.when && !(m as { group?: string }).group?.startsWith('inline')),
  );
  // the error and empty-list rows run their action on click (Enter) as well; Change Bid's menu entry
  // covers every bid row (/\.bid\b/), the outbid ones its inline button is on included
  assert.deepEqual(
    missing.filter((m) => !/viewItem (==|=~) .*(error|offersEmpty|spending)/.test(m.when ?? '')).map((m) => m.command),
    ['gpuRental.changeBid'],
  );
  for (const id of ['gpuRental.copyJupyterToken', 'gpuRental.snoozeGuard', 'gpuRental.reviewPriceIncrease'])
    assert.ok(
      items.some((m) => m.command === id && !(m as { group?: string }).group?.startsWith('inline')),
      `${id} has no context-menu entry`,
    );
});

test('welcome views wait for the stored key (gpuRental.ready) and only one has a primary button per state', () => {
  const welcome = (pkg.contributes as unknown as { viewsWelcome: Array<{ view: string; contents: string; when: string }> }).viewsWelcome;
  // A line that is only a link renders as a button.
  const buttonsOf = (ws: typeof welcome) =>
    ws.flatMap((w) =>
      w.contents
        .split('\n')
        .filter((l) => /^\[[^\]]+\]\([^)]+\)$/.test(l.trim()))
        .map(() => w.view),
    );
  // Signed out: every view waits for the stored key, and the sidebar has one primary button.
  const signedOut = welcome.filter((w) => w.when.includes('!gpuRental.signedIn'));
  for (const w of signedOut) assert.equal(w.when, 'gpuRental.ready && !gpuRental.signedIn', w.view);
  assert.deepEqual(buttonsOf(signedOut), ['gpuRental.instances']);
  // Signed in, an empty list (V5 of the UX audit): its own welcome content with one primary button.
  const empty = welcome.filter((w) => !signedOut.includes(w));
  assert.deepEqual(
    empty.map((w) => w.when),
    ['gpuRental.signedIn && gpuRental.noInstances', 'gpuRental.signedIn && gpuRental.noOffers'],
  );
  for (const w of empty) assert.deepEqual(buttonsOf([w]), [w.view], w.view);
  const wiring = readFileSync(join(repoRoot(), 'src', 'app', 'connectionWiring.ts'), 'utf8');
  assert.match(wiring, /setContext', 'gpuRental\.ready', true/);
});

test('command titles are told apart: unique, and the three logs say which log', () => {
  const titles = pkg.contributes.commands.map((c) => (c as { title?: string }).title);
  assert.deepEqual(
    titles.filter((t, i) => titles.indexOf(t) !== i),
    [],
  );
  const title = (id: string) => (pkg.contributes.commands.find((c) => c.command === id) as { title?: string }).title;
  assert.deepEqual(['gpuRental.showLog', 'gpuRental.showInstanceLogs', 'gpuRental.showGuardLog'].map(title), [
    'Show Output Log',
    'Show Instance Logs…',
    'Show Idle Guard Log…',
  ]);
});

test('every input box shows an example value (placeHolder), so an empty box says what it wants', () => {
  const files = (readdirSync(join(repoRoot(), 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.startsWith('sim'));
  const missing: string[] = [];
  let count = 0;
  for (const f of files) {
    const text = readFileSync(join(repoRoot(), 'src', f), 'utf8');
    for (const m of text.matchAll(/showInputBox\(\{/g)) {
      count++;
      // the options object: the next lines, not past the next input box
      const next = text.indexOf('showInputBox(', m.index + 1);
      const end = Math.min(next < 0 ? text.length : next, m.index + 900);
      if (!text.slice(m.index, end).includes('placeHolder')) missing.push(`${f}:${text.slice(0, m.index).split('\n').length}`);
    }
  }
  assert.ok(count >= 10, `found ${count} input boxes`);
  assert.deepEqual(missing, []);
});
