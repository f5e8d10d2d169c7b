// `npm run mutate`: StrykerJS over the money- and safety-critical core (see BENCHMARKS.md,
// "Mutation score"). Not part of `npm test`: each group takes minutes (measured per group in BENCHMARKS.md).
//
// How it runs: Stryker copies the repository to a sandbox and instruments the files below with
// every mutant at once (mutant switching); `buildCommand` bundles that sandbox once (the unit
// tests are esbuild bundles of src/); the tap runner then runs each test file as its own
// `node` process (node:test prints TAP) and learns which files reach which mutant, so a mutant
// only runs the test files that cover it (and stops at the first that fails).
//
// Groups: the scope is split into groups, each mutated against its own fast, targeted test
// files, and scripts/mutate.mjs runs them one after the other (MUTATE_GROUP picks one). One
// Stryker run over everything would make every surviving mutant of the HTTP pipeline run every
// test file that sends a request (the create flow's and the SSH tests' too): about a minute per
// survivor instead of 15 s. The tap runner's coverage is per test FILE and includes what a file
// runs while loading modules, so module-level constants are covered like the rest.
//
// The globs name files by role, not by a file layout of the past: the HTTP client's answer
// pipeline, pacing, redaction and reconciliation; the create flow's visibility and
// reconciliation rules; the SSH value checks and config writer; the cost summaries; the create
// flow's sequence and the offer filters; the charges, budget and price-increase decisions; the
// instance store's keep-or-drop rule.
//
// No TypeScript checker. It would drop mutants that do not compile (they are not bugs a user
// could ship), but measured here (2026-11-27, 2 shared cores, load 4-10): one full check of the
// project by the TypeScript 6 the checker needs takes 48 s (20 s of CPU), once per group before
// the first mutant, plus an incremental check per batch of mutants, all competing with the test
// runners for the same 2 cores; with StringLiteral mutants excluded, few mutants fail to compile
// (a survivor that would not compile is listed as such in BENCHMARKS.md). A run takes about 12 of
// the 15 minutes aimed for on this machine; the checker would add a few more, so it stays off.
//
// scripts/mutate.mjs runs Stryker and the test files in Node 22 with a compile cache (reasons there).

/** Each group: the files it mutates and the test files that must catch their mutants. */
export const GROUPS = {
  // the HTTP client's answer handling, pacing and redaction.
  //
  // The order counts (in every group): a mutant runs the files that reach it in this order and
  // stops at the first that fails, so the quick files that kill most come first, and the slow ones
  // that drive the simulator (every error it answers with, every endpoint in client.test.js) last,
  // for the few mutants only they catch and for the survivors.
  //
  // Each list names only files that killed a mutant the files before them missed. Left out, as
  // every run of them killed nothing more (all four groups with them, 2026-11-27, BENCHMARKS.md):
  // refusals, transport, pacingSim and simErrors here; liveCreation and visibilityFaults
  // (visibility); templateOptions, entrySync, copyCommand and writerLock (ssh); credit (costs).
  // client.test killed 7 mutants with 4 of its tests, which moved to clientChecks and
  // pipeline.test; the rest of it only made each survivor run its 3 s. They are second witnesses
  // at another level and run in `npm test`; here they only made every survivor slower.
  api: {
    mutate: ['src/api/{pipeline,answers,pacing,redact}.ts'],
    tests: ['out/unit/api/{redact,errors,pacing,keyEcho,pipeline,clientChecks}.test.js'],
  },
  // reconciliation and the visibility rule, and the create flow's use of them: polling, the
  // rent stage (gone / unknown / late) and the in-flight records that keep a rental from being forgotten
  visibility: {
    mutate: ['src/api/{reconcile,visibility}.ts', 'src/create/{pollUntilReady,rentOnce,inflight}.ts'],
    tests: ['out/unit/api/visibility.test.js', 'out/unit/create/{pollRules,createFlow,ambiguousCreate,lateMachine,requestOptions}.test.js'],
  },
  // SSH value checks, addresses and the config writer (what reaches ~/.ssh/config and a shell):
  // the rules on their own first. hostile.test.js is the one file that reaches the writer's lock
  // take-over, the retry after a concurrent change and the refused Include paths.
  ssh: {
    mutate: ['src/ssh/{sshValues,address,sshConfigWriter}.ts'],
    tests: ['out/unit/ssh/{address,sshValueRules,sshConfigWriter,templateIdentity,hostile}.test.js'],
  },
  // cost summaries
  costs: {
    mutate: ['src/costs/costs.ts'],
    tests: ['out/unit/costs/{storageSim,costs}.test.js'],
  },
  // the create flow's sequence (rent, watch, rent again only after a proven refusal, adopt a late
  // machine) and the template's offer filters (the price cap on the exact price). The flow's rules
  // of visibility are the visibility group's; this one mutates what sequences them. The offer
  // filters on their own first, then the flow's moves between offers, the rule for renting again
  // and the fault search's kept counterexamples; createFlow (against the simulator) last. Left
  // out for their time, not for killing nothing (2026-11-28, on a loaded machine): money (its
  // invariant sweep alone runs 37 s; a first run with it and the other create files had tested
  // 30 of 334 mutants after 4 minutes), ambiguousCreate, lateMachine, createFuzz, moneyLate,
  // liveCreation, sshOptionsKept, requestOptions, pollRules. They run in `npm test`. offerFit
  // killed nothing offerFitMutants missed (the run of 13:46). The failed-boot step and the table
  // of proven refusals are mutated here too: their tests (failedBootMutants on fake ports, first
  // so that its mutants stop there; rentAgain, createFlow) are already in this list.
  create: {
    mutate: ['src/create/{offerFit,createFlow,failedBoot}.ts', 'src/api/rentAgain.ts'],
    tests: [
      'out/unit/create/{offerFitMutants,failedBootMutants,rentAgainMutants,createFlowMutants,createFlowNextMutants,rentAgain,fuzzRegressions,createFlow}.test.js',
    ],
  },
  // what the service has charged and what the user decides about money: the charge sums (a day,
  // the week, the month), the charges walk over pages, the stopped-storage reminder, the budget and
  // its guarded stop, the price-increase figures, notices and decisions. The rule files first; the
  // property test of the decisions next; the files that drive the simulator (a charges walk of
  // several pages, a decision sent over HTTP, every billing endpoint in both eras) last.
  billing: {
    mutate: ['src/billing/{spending,stoppedStorage,budget,budgetAction,priceDecision,priceIncreases,increaseNotices}.ts', 'src/api/billingApi.ts'],
    tests: [
      'out/unit/billing/{spendingMutants,increaseMutants,decisionMutants}.test.js',
      'out/unit/billing/{budget,increaseNotices,stoppedStorage,budgetAction,priceIncreases,spending,decisions.property,chargesWalk,priceDecision}.test.js',
      'out/unit/api/billing.test.js',
    ],
  },
  // the instance list every view shows: which rows a walk keeps (a miss is not proof a machine is
  // gone), which ones poll fast. Both files run on fake timers; instanceGone (the real create flow
  // against the simulator, with the store) killed nothing these two missed (2026-11-28), so it is
  // left out.
  instances: {
    mutate: ['src/instances/instanceStore.ts'],
    tests: ['out/unit/instances/instanceStoreMutants.test.js', 'out/unit/core/poller.test.js'],
  },
};

const name = process.env.MUTATE_GROUP ?? 'api';
const group = GROUPS[name];
if (!group) throw new Error(`MUTATE_GROUP=${name}: no such group (${Object.keys(GROUPS).join(', ')})`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: group.mutate,
  mutator: {
    // Wording of messages is not what these files must get right (and each message string would be a
    // mutant of its own); the values that matter (paths, patterns, codes) are checked by what uses them.
    excludedMutations: ['StringLiteral'],
  },
  testRunner: 'tap',
  tap: {
    testFiles: group.tests,
    nodeArgs: ['--test-reporter=tap'],
    forceBail: true,
  },
  // --instrumented: see scripts/build.mjs (the module-state check does not apply to the instrumented copy)
  buildCommand: 'node scripts/build.mjs --instrumented',
  coverageAnalysis: 'perTest',
  checkers: [],
  ignorePatterns: [
    '/.vscode-test',
    '/out',
    '/dist',
    '/screenshots',
    '/test-results',
    '/.demo',
    '/tools/lint/node_modules',
    '/tools/mutate/node_modules',
    '/reports',
    '/demo-workspace',
  ],
  concurrency: 3,
  // A mutant that makes a flow wait forever (a poll that never settles) times out, and counts as
  // detected; each one costs timeoutFactor x the covering files' time + timeoutMS. With the
  // defaults of 2 x and 20 s, the 29 of the visibility group took about a quarter of its run.
  // 1.5 x and 10 s still leave a correct run half its time again of room on a loaded machine.
  timeoutMS: 10_000,
  timeoutFactor: 1.5,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: `.stryker-tmp`,
  cleanTempDir: 'always',
};
