/**
 * Every environment read goes through config.ts (validated as a whole, documented in one place),
 * and loggers are made by the composition roots and handed down: a module that read a variable
 * or made its own logger when imported would escape both. Test code, scripts/ and sandbox/ (its
 * own config.ts) are not product modules and may read theirs.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const PRODUCT = ['api', 'workflows', 'activities', 'core', 'db', 'workers', 'cli'];

function sources(): { file: string; text: string }[] {
  return PRODUCT.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => {
        const file = path.join(dir, f);
        return { file, text: fs.readFileSync(path.join(root, file), 'utf8') };
      }),
  );
}

it('no product module reads process.env: config.ts does', () => {
  const readers = sources()
    .filter(({ text }) => /process\.env\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
    .map(({ file }) => file);
  expect(readers).toEqual([]);
});

it('no product module makes a logger when it is imported: only the composition roots call createLogger', () => {
  const callers = sources()
    .filter(({ file, text }) => file !== path.join('core', 'logger.ts') && /\bcreateLogger\(/.test(text))
    .map(({ file }) => file)
    .sort();
  expect(callers).toEqual([
    path.join('api', 'server.ts'),
    // The operator's audit command: a composition root like reconcile (its logger goes to stderr).
    path.join('cli', 'audit', 'command.ts'),
    path.join('cli', 'reconcile.ts'),
    path.join('workers', 'main.ts'),
  ]);
  // And none of them at module scope (a line starting with `const … = createLogger(`).
  for (const { file, text } of sources())
    expect({ file, moduleScope: /^(export )?const \w+ = createLogger\(/m.test(text) }).toEqual({
      file,
      moduleScope: false,
    });
});
