/**
 * The set-up phase's installs (scripts/lib/testTools.ts) know every test file that needs them: a
 * file that calls an installer's script, itself or through a test/support module, is one that
 * `npm test -- <that file>` installs for, before jest starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TEST_TOOLS, testFiles, toolsFor } from '../../scripts/lib/testTools';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The test/support modules a file imports (one level: the installers are called there or in the file). */
function supportImports(source: string): string[] {
  return [...source.matchAll(/from '\.\.\/support\/([\w/]+)'/g)]
    .map((m) => `test/support/${m[1]}.ts`)
    .filter((f) => fs.existsSync(path.join(root, f)));
}

describe('the test tools installed before jest', () => {
  const files = testFiles(root);

  it('lists the suite', () => {
    expect(files).toContain('test/integration/schemathesis.test.ts');
    expect(files.length).toBeGreaterThan(100);
  });

  it.each(TEST_TOOLS.map((t) => [t.name, t] as const))('%s: every file that calls its script is listed', (_, tool) => {
    const callers = files.filter((file) => {
      if (file === 'test/unit/testTools.test.ts') return false;
      const source = read(file);
      return [source, ...supportImports(source).map(read)].some((s) => s.includes(tool.script));
    });
    expect(callers.length).toBeGreaterThan(0);
    expect(callers.filter((f) => !tool.usedBy.test(f))).toEqual([]);
    expect(files.filter((f) => tool.usedBy.test(f) && !callers.includes(f))).toEqual([]);
  });

  it('a run of named files installs what they need; a flag or no argument installs everything', () => {
    const names = (args: string[]) => toolsFor(args, root).map((t) => t.script);
    expect(names(['test/unit/money.test.ts'])).toEqual([]);
    expect(names(['test/integration/schemathesis.test.ts'])).toEqual(['schemathesis.sh']);
    expect(names(['test/browser'])).toEqual(['debianTools.sh', 'chromium.sh']);
    expect(names([path.join(root, 'test/integration/avatarS3.test.ts')])).toEqual(['motoServer.sh']);
    expect(names([])).toHaveLength(TEST_TOOLS.length);
    expect(names(['--selectProjects', 'unit'])).toHaveLength(TEST_TOOLS.length);
  });
});
