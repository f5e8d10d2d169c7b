// The offer search state against the simulator: persisted query, results, GPU names, errors,
// and a search overtaken by a connection change never shows up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OfferStore, SEARCH_DEBOUNCE_MS } from '../../../src/offers/offerStore';
import { OFFER_SEARCH_STATE_KEY } from '../../../src/core/stateKeys';
import type { ServiceApi } from '../../../src/api/types';
import { useHarness, type Harness } from '../api/helpers';
import { MemoryState } from '../../kit/state';

let h: Harness;
useHarness({}, (x) => (h = x));

const memory = () => new MemoryState();

function store(over: { api?: () => Promise<ServiceApi>; signedIn?: boolean; now?: () => number } = {}) {
  const state = memory();
  const warnings: string[] = [];
  const s = new OfferStore({
    api: over.api ?? (async () => h.client()),
    isSignedIn: () => over.signedIn ?? true,
    workspaceState: state,
    warn: (m) => warnings.push(m),
    ...(over.now ? { now: over.now } : {}),
  });
  let changes = 0;
  s.onDidChange(() => changes++);
  return { s, state, warnings, changes: () => changes };
}

test('a search is saved as the workspace query, its results and GPU names are kept', async () => {
  const { s, state, changes } = store();
  const offers = await s.search({ numGpus: 1, limit: 5 });
  assert.ok(offers.length > 0 && offers.length <= 5);
  assert.deepEqual(state.data.get(OFFER_SEARCH_STATE_KEY), { numGpus: 1, limit: 5 });
  assert.equal(s.query?.limit, 5, 'the saved query is read back');
  assert.equal(s.offers, offers);
  assert.equal(s.error, undefined);
  assert.equal(s.searching, false);
  assert.ok(s.gpuNames.length > 0 && s.gpuNames.every((n) => offers.some((o) => o.gpu_name === n)));
  assert.ok(changes() >= 2, 'searching and done both publish');
});

test('a failed search becomes the error row and a warning, and refresh() does not reject', async () => {
  const { s, warnings } = store();
  await h.ctl.fault({ kind: 'http_error', status: 400, error: 'bad_request', path: '/bundles', count: 10 });
  await assert.rejects(s.search({ limit: 3 }));
  assert.match(s.error ?? '', /./);
  assert.equal(warnings.length, 1);
  await s.refresh();
  await h.ctl.reset();
  await s.refresh();
  assert.equal(s.error, undefined, 'a later good search clears the error');
  assert.ok(s.offers?.length);
});

test('a search overtaken by a connection change is dropped', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { s } = store({ api: async () => (await gate, h.client()) });
  const p = s.search({ limit: 2 });
  await new Promise((r) => setImmediate(r));
  assert.equal(s.searching, true);
  s.reset();
  release();
  await p;
  assert.equal(s.offers, undefined, 'results of the old connection must not show');
});

test('Refresh re-runs the search only when the view is shown or has results, and never while signed out', async () => {
  const { s } = store();
  await s.refreshIfShown();
  assert.equal(s.offers, undefined);
  s.visible = true;
  await s.refreshIfShown();
  assert.ok(s.offers);
  const out = store({ signedIn: false });
  out.s.visible = true;
  await out.s.refreshIfShown();
  assert.equal(out.s.offers, undefined);
});

test('searches are debounced: Refresh of the same search within 6 s reuses it, a running search is joined, a new query always asks', async () => {
  let t = 0;
  let calls = 0;
  const api = async () => {
    const c = h.client();
    return {
      ...c,
      searchOffers: (q: Parameters<ServiceApi['searchOffers']>[0], o?: Parameters<ServiceApi['searchOffers']>[1]) => (calls++, c.searchOffers(q, o)),
    } as ServiceApi;
  };
  const { s } = store({ api, now: () => t });
  await s.search({ limit: 3 });
  assert.equal(calls, 1);
  await Promise.all([s.refresh(), s.refresh()]);
  assert.equal(calls, 1, 'within the debounce: the results shown are those of a moment ago');
  t += SEARCH_DEBOUNCE_MS;
  await Promise.all([s.refresh(), s.refresh()]);
  assert.equal(calls, 2, 'after it: one search for two clicks (the second joins the first)');
  await s.search({ limit: 4 });
  assert.equal(calls, 3, 'a new query is always asked');
});

test("while a new query waits out a 429 the previous query's offers are not shown as its results", async () => {
  // The extension's pacing: a search is sent at once; after a 429 the next waits the service's threshold.
  const api = h.client({ pacing: 'service' });
  const { s } = store({ api: async () => api });
  await h.ctl.setRateLimits({ search: 2 }); // one search per 2 s: the second one gets a real 429 and retries
  try {
    const first = await s.search({ numGpus: 1, limit: 3 });
    assert.ok(first.length > 0);
    const seen: Array<{ searching: boolean; offers: number | undefined; error: string | undefined }> = [];
    const sub = s.onDidChange(() => seen.push({ searching: s.searching, offers: s.offers?.length, error: s.error }));
    const second = s.search({ numGpus: 1, limit: 2 });
    await new Promise((r) => setTimeout(r, 300)); // the 429 came back; the client waits before retrying
    assert.equal(s.searching, true);
    assert.equal(s.offers, undefined, 'the view shows "Searching offers…", not the previous query\'s offers');
    assert.equal(s.error, undefined);
    const got = await second;
    assert.equal(got.length, 2);
    assert.equal(s.offers, got);
    sub.dispose();
    assert.deepEqual(seen.at(-1), { searching: false, offers: 2, error: undefined });
    const reqs = (await h.ctl.requests()).filter((r) => r.status === 429);
    assert.ok(reqs.length >= 1, 'the second search really met a 429');
  } finally {
    await h.ctl.setRateLimits('off');
  }
});

test('a Refresh of the same query keeps its offers in view while it runs', async () => {
  let release!: () => void;
  let gated = false;
  const gate = new Promise<void>((r) => (release = r));
  const { s } = store({ api: async () => (gated ? (await gate, h.client()) : h.client()) });
  const q = { numGpus: 1, limit: 3 };
  const first = await s.search(q);
  gated = true;
  const again = s.search(q);
  assert.equal(s.searching, true);
  assert.equal(s.offers, first, 'the same query: its offers stay while they are refreshed');
  release();
  await again;
});

test('a saved search is read once the query checker (its own bundle) has loaded; the view hears of it, and a Refresh before then waits for it', async () => {
  const state = memory();
  state.data.set(OFFER_SEARCH_STATE_KEY, { text: 'num_gpus>=1 dph<50', filters: { num_gpus: { gte: 1 } } });
  let searched: unknown;
  const api = async () => {
    const c = h.client();
    return {
      ...c,
      searchOffers: (q: Parameters<ServiceApi['searchOffers']>[0], o?: Parameters<ServiceApi['searchOffers']>[1]) => ((searched = q), c.searchOffers(q, o)),
    } as ServiceApi;
  };
  const s = new OfferStore({ api, isSignedIn: () => true, workspaceState: state, warn: () => undefined });
  let changes = 0;
  s.onDidChange(() => changes++);
  assert.equal(s.query === undefined, true, 'not read before the checker loaded: no default shown in its place');
  const refreshed = s.refresh();
  await s.ready;
  assert.ok(changes >= 1, 'the view is told the saved search can be read');
  assert.equal(s.query?.text, 'num_gpus>=1 dph<50', 'the saved search, re-checked');
  assert.equal((await s.savedQuery()).text, 'num_gpus>=1 dph<50');
  await refreshed;
  assert.equal((searched as { text?: string } | undefined)?.text, 'num_gpus>=1 dph<50', 'the early Refresh searched the saved query, not the defaults');
  assert.ok(s.offers?.length);
  const empty = new OfferStore({ api, isSignedIn: () => true, workspaceState: memory(), warn: () => undefined });
  assert.equal(empty.query?.limit, 64, 'nothing saved: the defaults at once');
});
