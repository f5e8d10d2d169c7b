// Command Palette hygiene (issue 16): every command shows only where it can run, and every
// setting that points at a file or a URL says its scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, manifest } from '../repoRoot';

interface Pkg {
  contributes: {
    commands: Array<{ command: string; enablement?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    configuration: { properties: Record<string, { scope?: string; markdownDescription?: string; description?: string }> };
    walkthroughs?: Array<{ id: string; steps: Array<{ id: string; when?: string; description: string; completionEvents?: string[]; media: { markdown?: string; image?: string } }> }>;
  };
}
const pkg = manifest() as Pkg;

/** Commands that can run in any state, so they stay in the palette unconditionally (with why). */
const ALWAYS: Record<string, string> = {
  'gpuRental.setApiKey': 'signing in is always possible',
  'gpuRental.importCliKey': 'signing in is always possible',
  'gpuRental.showLog': 'the output channel always exists',
  'gpuRental.setupSshConfig': 'asks about the SSH config, needs no account',
  'gpuRental.setTemplateSecret': 'secrets are stored locally, needs no account',
  'gpuRental.tfa.signIn': 'the logged-out 2FA sign-in needs no API key',
};

test('every command is either in the palette only where it can run (a when clause) or deliberately always', () => {
  const palette = new Map(pkg.contributes.menus.commandPalette!.map((e) => [e.command, e.when]));
  const missing = pkg.contributes.commands.filter((c) => !palette.has(c.command) && !c.enablement && !(c.command in ALWAYS)).map((c) => c.command);
  assert.deepEqual(missing, [], 'add a commandPalette "when" (or enablement) for these, or list them in ALWAYS with the reason');
  for (const id of Object.keys(ALWAYS)) assert.ok(!palette.has(id), `${id} is listed as always available but has a palette entry`);
  for (const [id, when] of palette) assert.ok(when && when.trim(), `${id}: a commandPalette entry without "when" does nothing`);
  // the instance and offer commands need an account; the log document commands need a log document
  for (const id of ['gpuRental.showInstanceLogs', 'gpuRental.rebootInstance', 'gpuRental.recycleInstance', 'gpuRental.changeBid', 'gpuRental.searchOffersQuery', 'gpuRental.browseServerTemplates'])
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
  assert.deepEqual(w.steps.map((s) => s.id), ['apiKey', 'sshKey', 'searchOffers', 'createFromTemplate', 'connect', 'stop']);
  for (const s of w.steps) {
    assert.match(s.description, /\]\(command:gpuRental\.[\w.]+\)/, `${s.id} has no command button`);
    assert.ok(s.completionEvents?.length, `${s.id} has no completion event`);
    const media = s.media.markdown ?? s.media.image;
    assert.ok(media && readFileSync(join(repoRoot(), media), 'utf8').length > 0, `${s.id}: media ${media} missing`);
  }
  assert.ok(w.steps.find((s) => s.id === 'sshKey')!.description.includes('command:gpuRental.addSshKey'));
});

test('walkthrough steps complete on the outcome, not on opening a command; the demo hides the sign-in step', () => {
  const w = pkg.contributes.walkthroughs!.find((x) => x.id === 'gettingStarted')!;
  const step = (id: string) => w.steps.find((s) => s.id === id)!;
  // Opening Search Offers and pressing Escape, or picking a template without renting, completed these.
  for (const id of ['sshKey', 'searchOffers', 'createFromTemplate']) {
    const events = step(id).completionEvents ?? [];
    assert.deepEqual(events.filter((e) => e.startsWith('onCommand:')), [], `${id} completes when its command merely runs`);
    assert.ok(events.some((e) => e.startsWith('onContext:gpuRental.walkthrough.')), `${id}: no outcome context`);
  }
  // Each outcome context is one the extension sets.
  const src = readFileSync(join(repoRoot(), 'src', 'core', 'vscode', 'walkthroughProgress.ts'), 'utf8');
  for (const s of w.steps) for (const e of s.completionEvents ?? []) if (e.startsWith('onContext:gpuRental.walkthrough.')) assert.ok(src.includes(`'${e.slice('onContext:'.length)}'`), `${e} is never set`);
  // Try Demo Mode and Set API Key have nothing to do inside the demo.
  assert.equal(step('apiKey').when, '!gpuRental.demoSession');
});
