/**
 * The nginx recipe of docs/psp.md keeps PIX_WEBHOOK_SECRET out of the proxy's access log: the
 * secret is a path segment, and nginx's default log format writes the request line ($request).
 * Its notification location either logs nothing (`access_log off;`) or logs with a format of the
 * recipe that names none of the variables that carry the path.
 */
import fs from 'node:fs';
import path from 'node:path';

const recipe = (() => {
  const text = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'psp.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('docs/psp.md has no nginx block');
  return block[1];
})();

/** nginx variables whose value holds the request's path (and so the secret). */
const PATH_VARIABLES = /\$(request|request_uri|uri|document_uri|request_filename|request_body|upstream_\w+)\b/;

/** The body of `location <prefix> { … }` (no nested blocks in the recipe but `if`'s one-liners). */
function locationBlock(prefix: string): string {
  const start = recipe.indexOf(`location ${prefix} {`);
  if (start < 0) throw new Error(`no location ${prefix} in the recipe`);
  let depth = 0;
  for (let i = recipe.indexOf('{', start); i < recipe.length; i++) {
    if (recipe[i] === '{') depth++;
    if (recipe[i] === '}' && --depth === 0) return recipe.slice(recipe.indexOf('{', start) + 1, i);
  }
  throw new Error(`location ${prefix} is not closed`);
}

/** Directives without comments, one per `;`. */
const directives = (text: string) =>
  text
    .split('\n')
    .map((l) => l.replace(/#.*$/, ''))
    .join('\n')
    .split(';')
    .map((d) => d.trim().replace(/\s+/g, ' '))
    .filter(Boolean);

it('the notification location of the nginx recipe writes no access log line with the secret path', () => {
  const own = directives(locationBlock('/webhooks/pix-api/'))
    .map((d) => d.replace(/^.*\{\s*/, ''))
    .filter((d) => d.startsWith('access_log '));
  expect(own.length).toBeGreaterThan(0);
  for (const line of own) {
    const [, target, format] = line.split(' ');
    if (target === 'off') continue;
    // A file without a format would be written in the default "combined" format, $request and all.
    expect(format).toBeDefined();
    const definition = directives(recipe).find((d) => d.startsWith(`log_format ${format} `));
    expect(definition).toBeDefined();
    expect(definition).not.toMatch(PATH_VARIABLES);
  }
});
