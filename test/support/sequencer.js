/**
 * Runs the longest test files first, so no long file starts last and ends the run alone with the
 * other workers idle. Durations come from test/support/durations.json (seconds per file, from a
 * full run's jest results: `npm test` prints the slowest files at the end; refresh the file with
 * `node scripts/lib/testDurations.js <jest-results.json>` when they drift). A file not listed yet
 * counts by its size, after every listed one of more than a second.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const root = path.resolve(__dirname, '..', '..');
const durations = JSON.parse(fs.readFileSync(path.join(__dirname, 'durations.json'), 'utf8'));

function weight(test) {
  const known = durations[path.relative(root, test.path).split(path.sep).join('/')];
  if (known !== undefined) return known;
  try {
    return fs.statSync(test.path).size / 10_000;
  } catch {
    return 0;
  }
}

class LongestFirst extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => weight(b) - weight(a) || a.path.localeCompare(b.path));
  }
}

module.exports = LongestFirst;
