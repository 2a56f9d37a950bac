// The README's code blocks, extracted and classified for the doc tests (test/docs/readme-blocks.node.test.ts
// runs the CLI lines and checks the synopses; test/consumers/consumers.node.test.ts runs the Node and
// page blocks against the packed package). Generic: blocks are found by their fence and classified by
// the fence's language and what they import, so a rewritten README is tested as it stands.
//
// Classification (a `<!-- doc-test: KIND reason -->` comment on the lines just above a fence overrides):
// - sh / bash / shell / console: CLI lines; every `wan-vae ...` / `npx wan-vae ...` command in them runs
//   (other commands, e.g. `bash scripts/setup.sh`, `npm install ...`, are listed, not run);
// - js / ts importing 'wan-vae-webgpu/node': a Node module; importing 'wan-vae-webgpu' (or its other
//   subpaths): a page module; html: a page (its import map's paths are checked against the package);
// - a block without a language whose lines start with `wan-vae `: a synopsis (each flag it names must be
//   a flag of that command);
// - `<!-- doc-test: skip reason -->`: not run, the reason printed (a fragment that cannot run alone).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type BlockKind = 'cli' | 'node' | 'page' | 'html' | 'synopsis' | 'skip' | 'other';

export interface Block {
  /** the markdown file, relative to the repository root */
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  lang: string;
  code: string;
  kind: BlockKind;
  /** the marker's text after the kind (skip: why) */
  note: string;
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const SCRIPT = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);
const KINDS: readonly BlockKind[] = ['cli', 'node', 'page', 'html', 'synopsis', 'skip', 'other'];

/** Every fenced block of `markdown` (the text of `file`), classified. */
export function extractBlocks(markdown: string, file = 'README.md'): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trim().startsWith(fence!); j++) body.push(lines[j]!.slice(Math.min(indent!.length, lines[j]!.search(/\S|$/))));
    // a marker on the nearest non-blank line above the fence
    let k = i - 1;
    while (k >= 0 && !lines[k]!.trim()) k--;
    const marker = k >= 0 ? /<!--\s*doc-test:\s*(\w+)\s*(.*?)\s*-->/.exec(lines[k]!) : null;
    const code = body.join('\n');
    let kind: BlockKind;
    if (marker) {
      if (!KINDS.includes(marker[1] as BlockKind)) throw new Error(`${file}:${i + 1}: unknown doc-test marker '${marker[1]}' (${KINDS.join(', ')})`);
      kind = marker[1] as BlockKind;
    } else kind = classify(lang!.toLowerCase(), code);
    blocks.push({ file, line: i + 1, lang: lang!.toLowerCase(), code, kind, note: marker?.[2] ?? '' });
    i = j;
  }
  return blocks;
}

function classify(lang: string, code: string): BlockKind {
  if (SHELL.has(lang)) return 'cli';
  if (SCRIPT.has(lang)) {
    if (/from\s+['"]wan-vae-webgpu\/node['"]|import\(\s*['"]wan-vae-webgpu\/node['"]/.test(code)) return 'node';
    if (/from\s+['"]wan-vae-webgpu(\/[\w./-]+)?['"]/.test(code)) return 'page';
    return 'other';
  }
  if (lang === 'html') return 'html';
  if ((lang === '' || lang === 'text') && code.split('\n').some((l) => /^wan-vae \w/.test(l))) return 'synopsis';
  return 'other';
}

/** A shell line's words (single and double quotes; no expansions). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '',
    quote = '',
    any = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === "'" || ch === '"') [quote, any] = [ch, true];
    else if (/\s/.test(ch)) {
      if (cur || any) words.push(cur);
      [cur, any] = ['', false];
    } else cur += ch;
  }
  if (cur || any) words.push(cur);
  return words;
}

export interface ShellCommand {
  /** the command as written (without its comment) */
  text: string;
  /** the wan-vae arguments (after `wan-vae` / `npx wan-vae` / `node bin/wan-vae.mjs`), or null for another command */
  args: string[] | null;
}

/** The commands of a shell block: one per line, split at `&&` and `;`, `# comments` dropped. */
export function shellCommands(code: string): ShellCommand[] {
  const out: ShellCommand[] = [];
  for (const raw of code.split('\n')) {
    const line = raw
      .replace(/^\s*\$\s+/, '')
      .replace(/(^|\s)#.*$/, '')
      .trim();
    if (!line) continue;
    for (const part of line
      .split(/&&|;/)
      .map((p) => p.trim())
      .filter(Boolean)) {
      const w = shellWords(part);
      const at = w[0] === 'npx' && w[1] === 'wan-vae' ? 2 : w[0] === 'wan-vae' ? 1 : w[0] === 'node' && /(^|\/)bin\/wan-vae\.mjs$/.test(w[1] ?? '') ? 2 : -1;
      out.push({ text: part, args: at < 0 ? null : w.slice(at) });
    }
  }
  return out;
}

/** The synopsis lines of a block: command name and the flags each line names. */
export function synopsisFlags(code: string): { command: string; flags: string[]; line: string }[] {
  const out: { command: string; flags: string[]; line: string }[] = [];
  let command = '';
  for (const line of code.split('\n')) {
    const m = /^wan-vae (\w[\w-]*)/.exec(line);
    if (m) command = m[1]!;
    else if (!/^\s/.test(line)) command = '';
    if (!command) continue;
    out.push({ command, flags: [...line.matchAll(/--([a-z][\w-]*)/g)].map((x) => x[1]!), line });
  }
  return out;
}

const repoRoot = join(import.meta.dirname, '..', '..');

/** The blocks of a markdown file of the repository (README.md by default; docs/embedding.md works the same). */
export function readmeBlocks(file = 'README.md'): Block[] {
  return extractBlocks(readFileSync(join(repoRoot, file), 'utf8'), file);
}

/** The markdown files whose blocks the doc tests run: the README and the pages it sends an embedder or a CLI user to. */
export const DOC_FILES = ['README.md', 'docs/embedding.md', 'docs/cli.md'] as const;

/** Every block of every DOC_FILES file that exists. */
export function docBlocks(): Block[] {
  return DOC_FILES.filter((f) => existsSync(join(repoRoot, f))).flatMap((f) => readmeBlocks(f));
}

/** Where a block is, for messages: `README.md:123 (js)`. */
export const where = (b: Block) => `${b.file}:${b.line} (${b.lang || 'no language'})`;

/**
 * A page block as a page of the consumer app (one folder below the app, as test/consumers/plain-page):
 * the package mapped by an import map, errors and the outcome reported in `window.wanVaeResult`:
 * `{ planned, peak, frames }` read from the block's `plan` and `result` where it has them, or `{ error }`.
 * `js`: the block as JavaScript (a ts block with its types stripped by the caller).
 */
export function pageHtml(js: string): string {
  const lib = '../node_modules/wan-vae-webgpu/dist/lib';
  const map = { imports: { 'wan-vae-webgpu': `${lib}/index.js`, 'wan-vae-webgpu/trained': `${lib}/trained.js`, 'wan-vae-webgpu/worker': `${lib}/decoder.worker.js` } };
  const report = `
;window.wanVaeResult ??= {
  planned: typeof plan !== 'undefined' ? plan.plannedPeakGpuBytes : undefined,
  peak: typeof result !== 'undefined' ? result.peakGpuBytes : undefined,
  frames: typeof result !== 'undefined' ? result.frames : undefined,
};`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>README page block</title></head><body>
<canvas id="canvas"></canvas>
<script type="importmap">${JSON.stringify(map)}</script>
<script>
  const fail = (what) => { window.wanVaeResult ??= { error: String(what) }; };
  window.addEventListener('error', (e) => fail(e.error ? (e.error.code ? e.error.code + ': ' : '') + e.error.message : e.message));
  window.addEventListener('unhandledrejection', (e) => fail(e.reason && e.reason.message ? (e.reason.code ? e.reason.code + ': ' : '') + e.reason.message : e.reason));
</script>
<script type="module">
${js}
${report}
</script>
</body></html>
`;
}
