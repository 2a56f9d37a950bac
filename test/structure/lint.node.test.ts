// ESLint over src/, bench/ and test/ (eslint.config.js: typescript-eslint's recommended rules): no errors.
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('lint', () => {
  it('ESLint finds no errors in src/, bench/, test/', async () => {
    const eslint = new ESLint({ cwd: root });
    const results = await eslint.lintFiles(['src', 'bench', 'test']);
    const errors = results.flatMap((r) => r.messages.filter((m) => m.severity === 2).map((m) => `${r.filePath.slice(root.length + 1)}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`));
    expect(errors, 'ESLint errors').toEqual([]);
  }, 300_000);
});
