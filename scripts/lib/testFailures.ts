/**
 * The failed tests of a jest run, one line each, for the end of `npm test`'s output: CI shows
 * only the tail of a run, and a count of failures without their names cannot be acted on.
 */
import fs from 'node:fs';
import path from 'node:path';

interface AssertionResult {
  status: string;
  fullName: string;
  failureMessages?: string[];
}
interface SuiteResult {
  name: string;
  status: string;
  message?: string;
  assertionResults?: AssertionResult[];
}

const MAX_LINES = 40;

/** Lines naming each failed test and its error's first line; empty when nothing failed. */
export function failureLines(resultsFile: string, projectRoot: string): string[] {
  let suites: SuiteResult[];
  try {
    suites = JSON.parse(fs.readFileSync(resultsFile, 'utf8')).testResults ?? [];
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const suite of suites) {
    const file = path.relative(projectRoot, suite.name);
    const failed = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const test of failed) lines.push(`${file} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    // A suite that failed outside any test (its beforeAll, an import, a leaked handle).
    if (suite.status === 'failed' && failed.length === 0) lines.push(`${file}: ${firstLine(suite.message)}`);
  }
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`];
}

function firstLine(message: string | undefined): string {
  // eslint-disable-next-line no-control-regex -- jest's messages carry ANSI colour codes
  const plain = (message ?? 'no message').replace(/\u001b\[[0-9;]*m/g, '');
  const line = plain.split('\n').find((l) => l.trim() && !/^\s*●/.test(l)) ?? plain;
  return line.trim().slice(0, 300);
}
