// The repository root and its commit (with `-dirty` when tracked files differ from HEAD).
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function gitCommit(): string {
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  if (!head) return 'unknown (no git)';
  return git(['status', '--porcelain', '--untracked-files=no'])?.length ? `${head}-dirty` : head;
}
