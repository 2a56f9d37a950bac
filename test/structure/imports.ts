// The import graph of src/: every relative import (type-only ones too) of every .ts file, parsed with the
// TypeScript compiler's pre-processor (imports, re-exports, dynamic imports), resolved to files;
// `?raw` suffixes (WGSL sources) are kept as the .wgsl file they name. For test/structure/no-cycles.node.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The file a relative import names, or null (packages, missing files). */
function resolveImport(from: string, spec: string, virtual: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = normalize(join(dirname(from), spec.replace(/\?.*$/, '')));
  for (const c of [base, `${base}.ts`, join(base, 'index.ts')]) if (virtual.has(c) || (existsSync(c) && statSync(c).isFile())) return c;
  return base;
}

/** Files (paths relative to `root`) -> the files they import. `sources` overrides or adds file texts (tests). */
export function importGraph(root: string, dir = 'src', sources: Record<string, string> = {}): ImportGraph {
  const g: ImportGraph = new Map();
  const files = [...new Set([...tsFiles(join(root, dir)).map((f) => relative(root, f)), ...Object.keys(sources)])];
  const virtual = new Set(Object.keys(sources).map((f) => join(root, f)));
  for (const f of files) {
    const text = sources[f] ?? readFileSync(join(root, f), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const abs = join(root, f);
    g.set(
      f,
      info.importedFiles
        .map((i) => resolveImport(abs, i.fileName, virtual))
        .filter((x): x is string => !!x)
        .map((x) => relative(root, x)),
    );
  }
  return g;
}

/** Every import cycle (strongly connected component of more than one file, or a file importing itself), as file lists. */
export function cycles(g: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (g.get(v) ?? []).includes(v)) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The WGSL files `file` reaches through its imports (transitively), each with one import chain that reaches it. */
export function shadersReached(g: ImportGraph, file: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const seen = new Set<string>([file]);
  const queue: string[][] = [[file]];
  while (queue.length) {
    const path = queue.shift()!;
    for (const w of g.get(path.at(-1)!) ?? []) {
      if (w.endsWith('.wgsl')) {
        if (!found.has(w)) found.set(w, [...path, w]);
      } else if (!seen.has(w)) {
        seen.add(w);
        queue.push([...path, w]);
      }
    }
  }
  return found;
}
