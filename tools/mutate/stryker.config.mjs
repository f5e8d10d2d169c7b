// `npm run mutate`: StrykerJS over the money- and safety-critical core (see BENCHMARKS.md,
// "Mutation score"). Not part of `npm test`: it takes about a quarter of an hour on 2 cores.
//
// How it runs: Stryker copies the repository to a sandbox and instruments the files below with
// every mutant at once (mutant switching); `buildCommand` bundles that sandbox once (the unit
// tests are esbuild bundles of src/); the tap runner then runs each test file as its own
// `node` process (node:test prints TAP) and learns which files reach which mutant, so a mutant
// only runs the test files that cover it. The TypeScript checker drops mutants that do not
// compile (they are not bugs a user could ship).
//
// The globs name files by role, not by today's file layout, so that moving code between files
// of the same folder keeps them covered: the HTTP client's answer pipeline, pacing, redaction
// and reconciliation; the create flow's visibility and reconciliation rules; the SSH value
// checks and config writer; the cost summaries.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    // redaction, pacing and the reconciliation/absence rules of the HTTP client
    'src/api/{redact,pacing,reconcile,absence}.ts',
    // SSH value checks and addresses (what reaches ~/.ssh/config and a shell)
    'src/ssh/{sshValues,address}.ts',
    // cost summaries
    'src/costs/costs.ts',
  ],
  mutator: {
    // Wording of messages is not what these files must get right (and each message string would be a
    // mutant of its own); the values that matter (paths, patterns, codes) are checked by what uses them.
    excludedMutations: ['StringLiteral'],
  },
  testRunner: 'tap',
  tap: {
    testFiles: [
      // the fast, targeted files: a surviving mutant runs every file that reaches it
      'out/unit/api/{redact,keyEcho,pacing,pacingSim,refusals,errors}.test.js',
      'out/unit/ssh/{address,sshConfigWriter}.test.js',
      'out/unit/costs/*.test.js',
    ],
    nodeArgs: ['--test-reporter=tap'],
    forceBail: true,
  },
  buildCommand: 'node scripts/build.mjs',
  coverageAnalysis: 'perTest',
  // Module-level constants would need every test file for each of their mutants; the values
  // they hold (limits, patterns) are exercised through the functions that use them.
  ignoreStatic: true,
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  ignorePatterns: ['/.vscode-test', '/out', '/dist', '/screenshots', '/test-results', '/.demo', '/tools/lint/node_modules', '/tools/mutate/node_modules', '/reports', '/demo-workspace'],
  concurrency: 3,
  timeoutMS: 20_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
