// The folders of src/ depend on each other in one direction only. In particular the HTTP layer
// (src/http) and the operator's actions (src/operations) never import each other: both build on
// the resources, keys, money and database modules. Dynamic `import()`s count as imports.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `http` for src/http/..., the file name for a file at the top of src (`app.ts`). */
function unitOf(file: string): string {
  return relative(SRC, file).split('/')[0] as string;
}

/** Every (importer, imported) pair of src files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const edges = sourceFiles(SRC).flatMap((file) => importsOf(file).map((target) => [file, target] as const));

function unitGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const [a, b] = [unitOf(from), unitOf(to)];
    if (a === b) continue;
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

  it('no exported name means two things: each is defined in one file (a TypeBox schema and its type count once)', () => {
    const definedIn = new Map<string, Set<string>>();
    for (const file of sourceFiles(SRC)) {
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
