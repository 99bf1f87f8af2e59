/**
 * Every relative link in README.md and docs/ resolves: its file or folder exists inside the
 * repository, and a `#anchor` into a markdown file names one of that file's headings, slugged as
 * GitHub slugs them. A link out of the repository (`../elsewhere`) fails like a missing file: a
 * clone has nothing there. Links to the web are not followed (the suite runs offline).
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** README.md and every markdown file under docs/, as repository paths. */
function markdownFiles(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found.sort();
}

/**
 * The lines of a markdown text with fenced code blocks blanked (line numbers kept): a link or
 * heading inside a code block is neither.
 */
function outsideFences(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && opener) {
      fence = opener[1];
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence[0].repeat(fence.length)) && line.trim().replace(/[`~]/g, '') === '')
        fence = null;
      return '';
    }
    return line;
  });
}

/** A line without its code spans (`…`), which hold text, never links. */
const withoutCodeSpans = (line: string) => line.replace(/(`+)[\s\S]*?\1/g, '');

interface Link {
  file: string;
  line: number;
  target: string;
}

function linksOf(file: string): Link[] {
  const lines = outsideFences(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const links: Link[] = [];
  lines.forEach((raw, i) => {
    const line = withoutCodeSpans(raw);
    const add = (target: string) => links.push({ file, line: i + 1, target: target.trim() });
    // [text](target "title") and ![alt](target); the target may be written <in angle brackets>.
    for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g))
      add(m[1].replace(/^<|>$/g, ''));
    // Reference definitions: [label]: target
    const ref = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (ref) add(ref[1].replace(/^<|>$/g, ''));
    for (const m of line.matchAll(/<a\s[^>]*href="([^"]+)"/gi)) add(m[1]);
  });
  return links;
}

/**
 * The text GitHub renders for a heading's markdown: code spans keep their content as it is; outside
 * them links and images become their text, and emphasis markers and HTML tags go.
 */
function headingText(markdown: string): string {
  const prose = (s: string) =>
    s
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<\/?[a-z][^>]*>/gi, '')
      .replace(/(\*\*|\*)(?=\S)([\s\S]*?\S)\1/g, '$2');
  const source = markdown.replace(/\s+#+\s*$/, '');
  let text = '';
  let last = 0;
  for (const m of source.matchAll(/(`+)([\s\S]*?)\1/g)) {
    text += prose(source.slice(last, m.index)) + m[2];
    last = (m.index ?? 0) + m[0].length;
  }
  return (text + prose(source.slice(last))).trim();
}

/**
 * GitHub's heading anchors (github-slugger): lower case; every character that is not a letter, a
 * mark, a digit, a space, "-" or "_" removed; each space a "-". Duplicates get -1, -2, … in order.
 */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a markdown text offers: its headings' slugs and explicit <a id|name="…">. */
function anchorsIn(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = outsideFences(text);
  for (const line of lines) {
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const base = githubSlug(headingText(heading[1]));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]);
  }
  return anchors;
}

const anchorsByFile = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsByFile.get(file);
  if (!anchors) {
    anchors = anchorsIn(fs.readFileSync(path.join(ROOT, file), 'utf8'));
    anchorsByFile.set(file, anchors);
  }
  return anchors;
}

/** Why a link does not resolve, or null when it does. */
function problemOf(link: Link): string | null {
  const target = link.target;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null; // https:, mailto:, …
  const hash = target.indexOf('#');
  const rawPath = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const relPath = decodeURIComponent(rawPath.split('?')[0]);
  const resolved = relPath.startsWith('/')
    ? path.join(ROOT, relPath)
    : path.resolve(path.dirname(path.join(ROOT, link.file)), relPath || path.basename(link.file));
  const inRepo = path.relative(ROOT, resolved);
  if (inRepo.startsWith('..') || path.isAbsolute(inRepo)) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return `no such file or folder: ${inRepo}`;
  if (anchor !== null && resolved.endsWith('.md') && fs.statSync(resolved).isFile()) {
    if (!anchorsOf(inRepo).has(anchor)) return `no heading with the anchor #${anchor} in ${inRepo}`;
  }
  return null;
}

describe('githubSlug', () => {
  it.each([
    ['Try it in five minutes', 'try-it-in-five-minutes'],
    ['`POST /sellers/pix` — create a Pix charge', 'post-sellerspix--create-a-pix-charge'],
    ['Hosted checkout page (`/c/{checkoutId}`)', 'hosted-checkout-page-ccheckoutid'],
    ['Never terminate a money workflow', 'never-terminate-a-money-workflow'],
    ['Pix infractions (MED)', 'pix-infractions-med'],
    ['Withdrawals (saques) and **freeze**', 'withdrawals-saques-and-freeze'],
    ['Conciliação: `PIX_API_*` e [links](x.md)', 'conciliação-pix_api_-e-links'],
    [
      'Charge lifecycle (`ChargeLifecycle`, workflow id `charge-<id>`)',
      'charge-lifecycle-chargelifecycle-workflow-id-charge-id',
    ],
  ])('%s → %s', (heading, slug) => {
    expect(githubSlug(headingText(heading))).toBe(slug);
  });

  it('numbers repeated headings as GitHub does, and skips headings inside code blocks', () => {
    const text = '# A\n## Tests\n```bash\n## Tests\n```\n### Tests\n<a id="here"></a>\n';
    expect([...anchorsIn(text)]).toEqual(['a', 'tests', 'tests-1', 'here']);
  });
});

describe('links in README.md and docs/', () => {
  const files = markdownFiles();
  const links = files.flatMap(linksOf);

  it('finds the documents and their links', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/architecture.md']));
    expect(links.filter((l) => l.file === 'README.md').length).toBeGreaterThanOrEqual(10);
  });

  it('every relative link resolves to a file or folder of the repository, and every #anchor to a heading', () => {
    const broken = links
      .map((link) => ({ link, problem: problemOf(link) }))
      .filter((x) => x.problem !== null)
      .map(({ link, problem }) => `${link.file}:${link.line} (${link.target}): ${problem}`);
    expect(broken).toEqual([]);
  });
});
