// The project speaks only of itself: no tracked file (node_modules aside) has a line that issue 27's
// grep finds (test/structure/words.ts WORK_WORDS: numbered sessions, run marks, people), except the
// lines in ALLOWED, each a line that matches the pattern without being about how the work was done,
// named by file and exact text with the reason. An entry whose line is gone fails too, so the list
// cannot outlive its reasons. A measurement is named by date, machine and commit.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { unexplained, workWordHits, type Allowed } from './words';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const ALLOWED: Allowed[] = [
  {
    file: 'models/train/evalset.py',
    line: /^s[0], s[1] = \(1\.0, 0\.7\) if idx % 2 == 0 else \(0\.7, 1\.0\)$/,
    why: "the zoom pan's start and end scale of the evaluation clips: math variables named s and a digit",
  },
  {
    file: 'models/train/evalset.py',
    line: /^s = s[0] \* \(s[1] \/ s[0]\) \*\* u$/,
    why: 'the scale at time u between the same two scales',
  },
];

describe('the project speaks only of itself', () => {
  it("no tracked file has a line the issue's grep finds, but the allowed ones", (ctx) => {
    let files: string[];
    try {
      files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
        .split('\0')
        .filter((f) => f && !f.startsWith('node_modules/'));
    } catch {
      ctx.skip('not a git checkout: the files checked are the tracked ones');
      return;
    }
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((f) => {
      let text: string;
      try {
        text = readFileSync(join(root, f), 'utf8');
      } catch {
        return []; // deleted in the working tree, not yet committed
      }
      return workWordHits(f, text);
    });
    const { hits: bad, stale } = unexplained(hits, ALLOWED);
    expect(
      bad.map((h) => `${h.file}:${h.lineNo}: ${h.line.trim().slice(0, 160)}`),
      'reword these (a date, machine and commit name a measurement), or allow a line that is not about the work in ALLOWED with its reason',
    ).toEqual([]);
    expect(
      stale.map((a) => `${a.file}: ${a.line}`),
      'allowed lines no longer in their file: remove them from ALLOWED',
    ).toEqual([]);
  }, 120_000);

  it('the pattern finds what it is for and passes over the rest', () => {
    // (the examples are cut in two so that this file's own lines do not match)
    const text = [
      'measured in sess' + 'ion 7',
      'the s' + '6 run',
      'as the le' + 'ad said',
      'Engin' + 'eers wrote',
      'an engin' + 'eer',
      'H200, 2026-12-01, 1e586aa',
      'sessions',
      's16 s_0 s0x',
      'leader',
    ].join('\n');
    expect(workWordHits('x.md', text).map((h) => h.lineNo)).toEqual([1, 2, 3, 4, 5]);
    expect(workWordHits('x.bin', 'the s' + '6 run\0')).toEqual([]);
    const hits = workWordHits('a.py', '  s' + '0 = 1\nx = 2');
    const entry = (file: string): Allowed => ({ file, line: /^s[0] = 1$/, why: 'a variable' });
    expect(unexplained(hits, [entry('a.py')])).toEqual({ hits: [], stale: [] });
    expect(unexplained(hits, [entry('b.py')]).hits).toHaveLength(1);
    expect(unexplained([], [entry('a.py')]).stale).toHaveLength(1);
    expect(unexplained(workWordHits('a.py', 's' + '0 = 12'), [entry('a.py')]).hits).toHaveLength(1);
  });
});
