// The order vitest starts test files in (vite.config.ts sequence.sequencer): the longest first, so that
// the workers running side by side finish together instead of one long file starting last. Durations
// come from vitest's own results cache where it has them for both files (a machine that ran the suite
// before; a failed file first, as vitest does), else from test/durations.json (seconds per
// `project:file` from a full run, scripts/test-durations.mjs writes it: what a fresh clone and CI use),
// else the larger file first (vitest's own rule without durations).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const table = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (s: TestSpecification) => `${s.project.name}:${relative(config.root, s.moduleId)}`;
    const info = new Map(
      files.map((s) => {
        const k = key(s);
        return [s, { cached: cache.getFileTestResults(k), table: table[k], size: cache.getFileStats(k)?.size ?? 0 }] as const;
      }),
    );
    return [...files].sort((a, b) => {
      const groupOrder = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groupOrder !== 0) return groupOrder;
      const x = info.get(a)!,
        y = info.get(b)!;
      if (x.cached && y.cached) {
        if (x.cached.failed !== y.cached.failed) return x.cached.failed ? -1 : 1;
        return y.cached.duration - x.cached.duration;
      }
      const tx = (x.table ?? 0) * 1000,
        ty = (y.table ?? 0) * 1000;
      if (tx !== ty) return ty - tx;
      return y.size - x.size;
    });
  }
}
