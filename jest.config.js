/**
 * Three projects in one pool of jest workers (scripts/test.ts sets --maxWorkers):
 * - unit: pure tests and the sandbox over HTTP; no PostgreSQL, no Temporal;
 * - workflows: the Java time-skipping server (one per file), real activities and database; replay;
 * - integration: the real stack (embedded PostgreSQL, the Temporal dev server, the sandbox over
 *   HTTP), and the hosted page in Chromium;
 * - smoke: the money smoke set on the production Temporal server (its own, on the run's
 *   PostgreSQL) and the API, worker and sandbox started from the production build.
 * The workflow code is bundled once per run (test/support/globalSetup.js) and every worker uses
 * that bundle. The longest files start first (test/support/sequencer.js), so they do not end the run alone.
 * Each file's CPU (its jest worker and the processes it starts) is recorded for the run's report.
 */
/**
 * ESM-only packages in node_modules that a test loads through CommonJS: jest cannot require ES
 * modules on Node 20 (plain Node can), so swc compiles them like our own code. Today one:
 * openapi-backend's @apidevtools/json-schema-ref-parser (the API Pix document validator).
 */
const ESM_ONLY = ['@apidevtools/json-schema-ref-parser'];
const transform = {
  '^.+\\.tsx?$': ['@swc/jest'],
  [`/node_modules/.*(${ESM_ONLY.join('|')})/.+\\.js$`]: ['@swc/jest'],
};
const project = (displayName, roots) => ({
  displayName,
  // jest's node environment, counting each file's CPU under `npm test` (test/support/cpuEnvironment.js).
  testEnvironment: '<rootDir>/test/support/cpuEnvironment.js',
  transform,
  // Every other file under node_modules is loaded as it is.
  transformIgnorePatterns: [`/node_modules/(?!.*(${ESM_ONLY.join('|')})/)`],
  testMatch: roots.map((r) => `<rootDir>/test/${r}/**/*.test.ts`),
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    project('unit', ['unit', 'sandbox']),
    project('workflows', ['workflows', 'replay']),
    project('integration', ['integration', 'browser']),
    project('smoke', ['smoke']),
  ],
  // A test's budget where its file sets none (jest's own default is 5 s): budgets in seconds must
  // hold on a host several times slower than ours; files with longer tests set more (at least 120 s).
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/support/globalSetup.js',
  globalTeardown: '<rootDir>/test/support/globalTeardown.js',
  testSequencer: '<rootDir>/test/support/sequencer.js',
};
