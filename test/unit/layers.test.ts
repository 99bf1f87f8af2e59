/**
 * The layers, read from the source tree (no build): every relative import of a product file —
 * static, `export … from`, `import()`, `require()`, `import type` and `import('…').T` — read with
 * the TypeScript parser and classified by the top-level folder on each side, is an arrow the
 * rules below allow:
 * - `api/` and `activities/` are siblings: neither imports the other, nor `workers/`; what both
 *   run lives below both, in `db/` (a row and the workflow start or signal that goes with it) or
 *   `core/` (pure rules and types);
 * - outside `workflows/`, a workflow is seen only through its contract, `workflows/<domain>/definitions.ts`
 *   and `types.ts`; workflow code sees activities as types only (`import type`), and no table;
 * - `core/` imports no other folder of the project;
 * - `cli/` never imports `api/` (it is a process of its own) nor the dev tooling in `scripts/`;
 *   no product folder imports `scripts/` or `test/`;
 * - `api/server.ts`, the API process's entry, is its composition root: it builds the real adapters
 *   from config.ts and hands them to createApp, so it may import `activities/` (the PSP client for
 *   /metrics' balance); no other file of `api/` may. The worker's entry and the CLI's commands are
 *   composition roots too, but their folders may already import what they build.
 * Any other import is listed in ALLOWED with the reason it is still one; an allowed import that no
 * longer exists fails too, so the list only shrinks. docs/architecture.md draws the same rules
 * (its mermaid picture), and the picture is checked against RULES here, so it cannot drift.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** A box of the picture: a top-level folder, a top-level file, or a composition root inside a folder. */
const LAYERS = [
  'api/server.ts',
  'cli',
  'workers',
  'api',
  'activities',
  'workflows',
  'db',
  'config.ts',
  'sandbox',
  'core',
] as const;
type Layer = (typeof LAYERS)[number];

/** How much of the target an arrow may take: anything, only the workflows' contract, or types only. */
type Reach = 'any' | 'contract' | 'types';

/** Who may import whom; an arrow not listed is forbidden. */
const RULES: Record<Layer, Partial<Record<Layer, Reach>>> = {
  'api/server.ts': {
    api: 'any',
    activities: 'any',
    db: 'any',
    core: 'any',
    'config.ts': 'any',
    workflows: 'contract',
  },
  cli: { workers: 'any', activities: 'any', db: 'any', core: 'any', 'config.ts': 'any', workflows: 'contract' },
  workers: { activities: 'any', db: 'any', core: 'any', 'config.ts': 'any', workflows: 'contract' },
  api: { db: 'any', core: 'any', 'config.ts': 'any', workflows: 'contract' },
  activities: { db: 'any', core: 'any', 'config.ts': 'any', workflows: 'contract' },
  workflows: { activities: 'types', core: 'any' },
  db: { core: 'any', workflows: 'contract' },
  'config.ts': { core: 'any' },
  sandbox: { core: 'any' },
  core: {},
};

/** Imports against RULES that are still there, each with why: `from-file -> target` → reason. */
// None is left. A new one must say here why it cannot go through a lower layer yet.
const ALLOWED: Record<string, string> = {};

/** Top-level names no product file may import (dev tooling and tests). */
const NEVER_IMPORTED = new Set(['scripts', 'test']);

const PRODUCT_ROOTS = ['api', 'activities', 'workers', 'workflows', 'db', 'core', 'cli', 'sandbox', 'config.ts'];

function walk(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return /\.tsx?$/.test(rel) && !rel.endsWith('.d.ts') ? [rel] : [];
  return fs
    .readdirSync(abs)
    .sort()
    .flatMap((name) => walk(path.posix.join(rel, name)));
}

interface Import {
  from: string;
  /** The specifier resolved to a repository path (no extension added). */
  target: string;
  typeOnly: boolean;
}

function importsOf(rel: string): Import[] {
  const source = ts.createSourceFile(rel, fs.readFileSync(path.join(ROOT, rel), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
      const allNamedTypes = !!named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      found.push({
        spec: node.moduleSpecifier.text,
        typeOnly: !!clause && (clause.isTypeOnly || (!clause.name && allNamedTypes)),
      });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause : undefined;
      const allNamedTypes = !!named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || allNamedTypes });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length > 0 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found
    .filter(({ spec }) => spec.startsWith('.'))
    .map(({ spec, typeOnly }) => ({
      from: rel,
      target: path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)),
      typeOnly,
    }));
}

/** The box a file of the product stands in. */
function layerOfFile(rel: string): Layer {
  if (rel === 'api/server.ts') return 'api/server.ts';
  if (rel === 'config.ts') return 'config.ts';
  return rel.split('/')[0] as Layer;
}

/** The box an import lands in; undefined for what is no code of the project (package.json, say). */
function layerOfTarget(target: string): Layer | 'never' | undefined {
  const top = target.split('/')[0];
  if (NEVER_IMPORTED.has(top)) return 'never';
  if (target === 'config' || target === 'config.ts') return 'config.ts';
  if (target === 'api/server' || target === 'api/server.ts') return 'api/server.ts';
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : undefined;
}

const WORKFLOW_CONTRACT = /^workflows\/(?:[\w-]+\/)+(?:definitions|types)(?:\.ts)?$/;

/** Why an import breaks the rules, or null when RULES allow it. */
function breach(imp: Import): string | null {
  const from = layerOfFile(imp.from);
  const to = layerOfTarget(imp.target);
  if (to === undefined || to === from) return null;
  if (to === 'never') return `${from} imports ${imp.target.split('/')[0]}/`;
  const reach = RULES[from][to];
  if (!reach) return `${from} may not import ${to}`;
  if (reach === 'types' && !imp.typeOnly) return `${from} may import ${to} as types only (import type)`;
  if (reach === 'contract' && !WORKFLOW_CONTRACT.test(imp.target))
    return `${from} may import only the workflows' definitions.ts and types.ts`;
  return null;
}

const IMPORTS = PRODUCT_ROOTS.flatMap(walk).flatMap(importsOf);
const key = (imp: Import) => `${imp.from} -> ${imp.target}`;

describe('imports between the layers follow the rules', () => {
  it('reads the product files', () => {
    expect(IMPORTS.length).toBeGreaterThan(1000);
    expect(IMPORTS.some((imp) => imp.typeOnly)).toBe(true);
  });

  it('no import outside ALLOWED breaks a rule', () => {
    const breaches = IMPORTS.flatMap((imp) => {
      const why = breach(imp);
      return why && !ALLOWED[key(imp)] ? [`${key(imp)}: ${why}`] : [];
    });
    expect(breaches).toEqual([]);
  });

  // jest refuses an empty table: with nothing allowed there is nothing to check.
  const allowed = Object.keys(ALLOWED);
  if (allowed.length > 0)
    it.each(allowed)('allowed %s still exists and still breaks a rule', (entry) => {
      const imp = IMPORTS.find((i) => key(i) === entry);
      expect({ entry, breaks: imp ? breach(imp) !== null : false }).toEqual({ entry, breaks: true });
    });
});

describe('docs/architecture.md draws exactly these rules', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /```mermaid\n(graph [\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const boxes = new Map(
    [...block.matchAll(/^\s*(\w+)\["([^"]+)"\]\s*$/gm)].map((m) => [m[1], m[2].replace(/\/$/, '')]),
  );
  const REACH_OF_LABEL: Record<string, Reach> = {
    '': 'any',
    'definitions.ts, types.ts': 'contract',
    'import type': 'types',
  };

  it('has a mermaid graph with a box per layer', () => {
    expect([...boxes.values()].sort()).toEqual([...LAYERS].sort());
  });

  it('its arrows are the allowed ones, with their reach', () => {
    const drawn = [...block.matchAll(/^\s*(\w+)\s*(-->|-\.->)\s*(?:\|([^|]*)\|)?\s*(\w+)\s*$/gm)].map(
      ([, from, arrow, label = '', to]) => {
        const reach = REACH_OF_LABEL[label.trim()];
        // A dotted arrow is a type-only one, and only that.
        expect({ arrow, label }).toEqual({ arrow: reach === 'types' ? '-.->' : '-->', label });
        return `${boxes.get(from)} -> ${boxes.get(to)} (${reach})`;
      },
    );
    const rules = LAYERS.flatMap((from) =>
      Object.entries(RULES[from]).map(([to, reach]) => `${from} -> ${to} (${reach})`),
    );
    expect(drawn.sort()).toEqual(rules.sort());
  });
});
