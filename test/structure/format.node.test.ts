// Prettier (.prettierrc) over the TypeScript and JavaScript of src/, test/, bench/, scripts/, bin/ and the
// top-level configs: every file is already formatted (`npm run format` writes them).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import * as prettier from 'prettier';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FORMATTED = /^(?:(?:src|test|bench|scripts|bin)\/.*|[^/]+)\.(?:ts|js|mjs)$/;

function trackedSources(): string[] {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
  return files.filter((f) => FORMATTED.test(f));
}

describe('format', () => {
  it('every tracked source file is formatted as .prettierrc says', async (ctx) => {
    let files: string[];
    try {
      files = trackedSources();
    } catch {
      ctx.skip('not a git checkout: the formatted files are the tracked ones');
      return;
    }
    expect(files.length).toBeGreaterThan(100);
    const unformatted: string[] = [];
    for (const file of files) {
      const path = join(root, file);
      const options = await prettier.resolveConfig(path);
      const info = await prettier.getFileInfo(path, { ignorePath: join(root, '.prettierignore') });
      if (info.ignored) continue;
      const text = readFileSync(path, 'utf8');
      if (!(await prettier.check(text, { ...options, filepath: path }))) unformatted.push(file);
    }
    expect(unformatted, 'run `npm run format`').toEqual([]);
  }, 300_000);
});
