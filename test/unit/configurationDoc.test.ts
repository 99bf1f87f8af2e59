/**
 * docs/configuration.md against the code, both ways: every environment variable the product reads
 * has a row in one of the document's tables, and every variable a table names is read somewhere.
 * "The product" is config.ts and the folders api, workflows, activities, core, db, workers, cli,
 * sandbox and scripts, read from disk at test time: a read moved from one file into config.ts (or
 * a file moved between folders) changes nothing here.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const PRODUCT = ['config.ts', 'api', 'workflows', 'activities', 'core', 'db', 'workers', 'cli', 'sandbox', 'scripts'];
const DOC = 'docs/configuration.md';
const NAME = '[A-Z][A-Z0-9_]*[A-Z0-9]';

function productFiles(extensions: RegExp): string[] {
  const found: string[] = [];
  const visit = (rel: string) => {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isDirectory()) {
      for (const entry of fs.readdirSync(abs)) if (entry !== 'node_modules') visit(path.posix.join(rel, entry));
    } else if (extensions.test(rel)) found.push(rel);
  };
  PRODUCT.forEach(visit);
  return found;
}

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/**
 * The variables a TypeScript/JavaScript source reads: `process.env.X`, `process.env['X']`, the
 * same on an `env` object handed the environment (`env.X`, as sandbox/config.ts does), and
 * destructuring (`const { X, Y: y } = process.env`). Assignments (`process.env.X = …`) are writes.
 */
function envReadsIn(source: string): Set<string> {
  const names = new Set<string>();
  const access = new RegExp(`(?<![\\w.])(?:process\\.)?env\\??\\.(${NAME})\\b(?!\\s*=(?!=))`, 'g');
  const indexed = new RegExp(`(?<![\\w.])(?:process\\.)?env\\[\\s*['"](${NAME})['"]\\s*\\](?!\\s*=(?!=))`, 'g');
  for (const m of source.matchAll(access)) names.add(m[1]);
  for (const m of source.matchAll(indexed)) names.add(m[1]);
  for (const m of source.matchAll(/\{([^{}]*)\}\s*=\s*(?:process\.)?env\b/g)) {
    for (const part of m[1].split(',')) {
      const key = part.split(':')[0].trim();
      if (new RegExp(`^${NAME}$`).test(key)) names.add(key);
    }
  }
  return names;
}

/** config.ts reads through its EnvReader by name: every name-shaped string literal there is a variable. */
function configReads(): Set<string> {
  const source = read('config.ts');
  const names = envReadsIn(source);
  for (const m of source.matchAll(new RegExp(`'(${NAME})'`, 'g'))) names.add(m[1]);
  return names;
}

/** What the product reads from the environment (the direction "read → documented"). */
function productReads(): Map<string, string[]> {
  const where = new Map<string, string[]>();
  const note = (name: string, file: string) => where.set(name, [...(where.get(name) ?? []), file]);
  for (const name of configReads()) note(name, 'config.ts');
  for (const file of productFiles(/\.(ts|js|mjs|cjs)$/)) {
    if (file === 'config.ts') continue;
    for (const name of envReadsIn(read(file))) note(name, file);
  }
  return where;
}

/**
 * Where else a documented variable may be read (the direction "documented → read"): the tool
 * scripts' `${X:-default}` / `$X`, and the CLI's `env('X')` helper (the environment, else the
 * running stack's local settings).
 */
function otherReads(): Set<string> {
  const names = new Set<string>();
  for (const file of productFiles(/\.sh$/))
    for (const m of read(file).matchAll(new RegExp(`\\$\\{?(${NAME})\\b`, 'g'))) names.add(m[1]);
  for (const file of productFiles(/\.(ts|js)$/))
    for (const m of read(file).matchAll(new RegExp(`\\benv\\(\\s*'(${NAME})'\\s*\\)`, 'g'))) names.add(m[1]);
  return names;
}

/** The variables named in the first column of the document's tables whose first header is "variable". */
function documented(): Set<string> {
  const names = new Set<string>();
  let inVariableTable = false;
  for (const line of read(DOC).split('\n')) {
    if (!line.startsWith('|')) {
      inVariableTable = false;
      continue;
    }
    const first = line.split('|')[1].trim();
    if (/^variable$/i.test(first)) {
      inVariableTable = true;
      continue;
    }
    if (!inVariableTable || /^:?-+:?$/.test(first)) continue;
    for (const m of first.matchAll(new RegExp('`(' + NAME + ')`', 'g'))) names.add(m[1]);
  }
  return names;
}

describe('envReadsIn', () => {
  it('finds reads and ignores writes', () => {
    const source = [
      "const a = process.env.ALPHA ?? 'x';",
      "const b = process.env['BRAVO'];",
      'if (env.CHARLIE && env?.DELTA) {}',
      'const { ECHO, FOXTROT: f } = process.env;',
      'process.env.GOLF = "set by a script";',
      "if (process.env.HOTEL === 'y') {}",
      'const c = config.env.INDIA;',
    ].join('\n');
    expect([...envReadsIn(source)].sort()).toEqual(['ALPHA', 'BRAVO', 'CHARLIE', 'DELTA', 'ECHO', 'FOXTROT', 'HOTEL']);
  });
});

describe(DOC, () => {
  const reads = productReads();
  const doc = documented();

  it('has tables of variables, and the product reads variables', () => {
    expect(doc.size).toBeGreaterThan(40);
    expect([...reads.keys()]).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'NODE_ENV', 'CREDENTIALS_ENCRYPTION_KEY']),
    );
  });

  it('documents every environment variable the product reads', () => {
    const missing = [...reads.entries()]
      .filter(([name]) => !doc.has(name))
      .map(([name, files]) => `${name} (read in ${[...new Set(files)].join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('documents no variable that nothing reads', () => {
    const other = otherReads();
    const unread = [...doc].filter((name) => !reads.has(name) && !other.has(name));
    expect(unread).toEqual([]);
  });
});
