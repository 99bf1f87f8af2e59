import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failureLines } from '../../scripts/lib/testFailures';

function resultsFile(testResults: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'failures-'));
  const file = path.join(dir, 'results.json');
  fs.writeFileSync(file, JSON.stringify({ testResults }));
  return file;
}

describe('failureLines (the names npm test prints at its end)', () => {
  const root = '/repo';

  it('names each failed test with its error, and nothing for passed ones', () => {
    const file = resultsFile([
      {
        name: '/repo/test/unit/a.test.ts',
        status: 'failed',
        assertionResults: [
          { status: 'passed', fullName: 'a works' },
          {
            status: 'failed',
            fullName: 'a pays once',
            failureMessages: ['\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 1\n    at x'],
          },
        ],
      },
      { name: '/repo/test/unit/b.test.ts', status: 'passed', assertionResults: [{ status: 'passed', fullName: 'b' }] },
    ]);
    expect(failureLines(file, root)).toEqual([
      'test/unit/a.test.ts › a pays once: Error: expect(received).toBe(expected)',
    ]);
  });

  it('names a suite that failed outside its tests', () => {
    const file = resultsFile([
      {
        name: '/repo/test/integration/c.test.ts',
        status: 'failed',
        message: '  ● Test suite failed to run\n\n    Cannot find module x',
        assertionResults: [],
      },
    ]);
    expect(failureLines(file, root)).toEqual(['test/integration/c.test.ts: Cannot find module x']);
  });

  it('is empty when the results cannot be read', () => {
    expect(failureLines('/nonexistent/results.json', root)).toEqual([]);
  });
});
