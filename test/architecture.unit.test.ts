// The folders of src/ depend on each other in one direction only, and so do its files, also inside
// one folder; so do the harnesses around it (bench/, deploy/, scripts/), which share their helpers
// through scripts/lib instead of importing each other. In particular the HTTP layer (src/http) and the operator's actions (src/operations)
// never import each other: both build on the resources, keys, money and database modules. Every
// import counts: type-only ones (`import type`), re-exports and dynamic `import()`s too.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './helpers/files.js';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** `http` for src/http/..., the file name for a file at the top of src (`app.ts`). */
function unitOf(file: string): string {
  return relative(SRC, file).split('/')[0] as string;
}

/** The src files a file imports: `import`, `import type`, `export ... from`, `import()`, bare `import '...'`. */
function importsOf(file: string): string[] {
  // Comments may show imports as examples: not read.
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map(
    (m) => m[1]!,
  );
  return specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const edges = filesUnder(SRC, '.ts').flatMap((file) =>
  importsOf(file).map((target) => [file, target] as const),
);

function unitGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const [a, b] = [unitOf(from), unitOf(to)];
    if (a === b) continue;
    graph.set(a, (graph.get(a) ?? new Set()).add(b));
  }
  return graph;
}

function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const [a, b] = [relative(SRC, from), relative(SRC, to)];
    graph.set(a, (graph.get(a) ?? new Set()).add(b));
  }
  return graph;
}

/** One cycle of the graph as a path, or null. */
function findCycle(graph: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('architecture of src/', () => {
  it('reads the imports (the check below would pass vacuously otherwise)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(unitGraph().get('http')?.has('errors.ts')).toBe(true);
  });

  it('src/http and src/operations never import each other', () => {
    const crossing = edges
      .filter(([from, to]) => {
        const [a, b] = [unitOf(from), unitOf(to)];
        return (a === 'http' && b === 'operations') || (a === 'operations' && b === 'http');
      })
      .map(([from, to]) => `${relative(SRC, from)} -> ${relative(SRC, to)}`);
    expect(crossing).toEqual([]);
  });

  it('no folder depends on one that depends on it', () => {
    expect(findCycle(unitGraph())).toBeNull();
  });

  it('no file depends on one that depends on it, inside one folder too, type-only imports included', () => {
    expect(fileGraph().get('cli/main.ts')?.has('cli/command.ts')).toBe(true); // `import type` is read
    expect(findCycle(fileGraph())).toBeNull();
  });

  it('finds a cycle where there is one (the check cannot pass vacuously)', () => {
    const graph = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['a.ts'])],
    ]);
    expect(findCycle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('no exported name means two things: each is defined in one file (a TypeBox schema and its type count once)', () => {
    const definedIn = new Map<string, Set<string>>();
    for (const file of filesUnder(SRC, '.ts')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /^export (?:async )?(?:function|const|let|class|interface|type|enum) ([A-Za-z0-9_]+)/gm,
      )) {
        const name = match[1] as string;
        definedIn.set(name, (definedIn.get(name) ?? new Set()).add(relative(SRC, file)));
      }
    }
    const twice = [...definedIn]
      .filter(([, files]) => files.size > 1)
      .map(([name, files]) => `${name}: ${[...files].join(', ')}`);
    expect(twice).toEqual([]);
  });
});

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HARNESSES = ['bench', 'deploy', 'scripts'];

/** Every import among the harnesses' files and from them, as paths from the repository's root. */
function harnessEdges(): [string, string][] {
  return HARNESSES.flatMap((folder) =>
    filesUnder(join(ROOT, folder), '.ts').flatMap((file) =>
      importsOf(file).map((target) => [relative(ROOT, file), relative(ROOT, target)] as [string, string]),
    ),
  );
}

describe('architecture of the harnesses (bench/, deploy/, scripts/)', () => {
  const harness = harnessEdges();

  it('reads their imports (the checks below would pass vacuously otherwise)', () => {
    expect(harness.length).toBeGreaterThan(50);
    expect(harness.some(([from, to]) => from.startsWith('deploy/') && to.startsWith('scripts/lib/'))).toBe(
      true,
    );
  });

  it('no top folder depends on one that depends on it (bench and deploy share scripts/lib)', () => {
    const graph = new Map<string, Set<string>>();
    for (const [from, to] of harness) {
      const [a, b] = [from.split('/')[0]!, to.split('/')[0]!];
      if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    expect(findCycle(graph)).toBeNull();
    expect(graph.get('bench')?.has('deploy') ?? false).toBe(false);
    expect(graph.get('deploy')?.has('bench') ?? false).toBe(false);
  });

  it('no file depends on one that depends on it', () => {
    const graph = new Map<string, Set<string>>();
    for (const [from, to] of harness) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    expect(findCycle(graph)).toBeNull();
  });
});
