#!/usr/bin/env node
/**
 * Writes test/support/durations.json (seconds per test file, rounded to 0.1) from a jest results
 * file (`npm test` keeps one in its log directory: jest-results.json), for the test sequencer.
 *   node scripts/lib/testDurations.js <jest-results.json>
 * The results may come from another clone (e.g. a clean-clone CI run): paths are taken from test/ on.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

function testPath(file) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  return relative.startsWith('../') ? relative.slice(relative.indexOf('/test/') + 1) : relative;
}
const results = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const durations = Object.fromEntries(
  results.testResults
    .map((t) => [testPath(t.name), Math.round((t.endTime - t.startTime) / 100) / 10])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
);
fs.writeFileSync(path.join(root, 'test', 'support', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
process.stdout.write(`wrote ${Object.keys(durations).length} durations\n`);
