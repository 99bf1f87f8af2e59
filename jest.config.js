/**
 * Three projects in one pool of jest workers (scripts/test.ts sets --maxWorkers):
 * - unit: pure tests and the sandbox over HTTP; no PostgreSQL, no Temporal;
 * - workflows: the Java time-skipping server (one per file), real activities and database; replay;
 * - integration: the real stack (embedded PostgreSQL, the Temporal dev server, the sandbox over
 *   HTTP), and the hosted page in Chromium.
 * The workflow code is bundled once per run (test/support/globalSetup.js) and every worker uses
 * that bundle. The longest files start first (test/support/sequencer.js), so they do not end the run alone.
 */
const transform = {
  '^.+\\.tsx?$': ['@swc/jest'],
  // openapi-backend (the tests' API Pix request validator) requires @apidevtools/json-schema-ref-parser,
  // which is published as ES modules only; jest's CommonJS runtime needs it compiled like our code.
  '/@apidevtools/json-schema-ref-parser/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
};
const project = (displayName, roots) => ({
  displayName,
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: ['/node_modules/(?!.*@apidevtools/json-schema-ref-parser/)'],
  testMatch: roots.map((r) => `<rootDir>/test/${r}/**/*.test.ts`),
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [project('unit', ['unit', 'sandbox']), project('workflows', ['workflows', 'replay']), project('integration', ['integration', 'browser'])],
  globalSetup: '<rootDir>/test/support/globalSetup.js',
  globalTeardown: '<rootDir>/test/support/globalTeardown.js',
  testSequencer: '<rootDir>/test/support/sequencer.js',
};
