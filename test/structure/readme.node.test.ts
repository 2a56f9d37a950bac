// README.md is the product page a newcomer reads in five minutes (issue 27): at most 350 lines; what is
// longer belongs in docs/ or in a dated bench/results record.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('README.md', () => {
  it('has at most 350 lines', () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    expect(lines).toBeGreaterThan(50);
    expect(lines, 'README.md lines (move detail to docs/)').toBeLessThanOrEqual(350);
  });
});
