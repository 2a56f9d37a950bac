// The DIR/ output: a folder of PNG frames, each written under its name once encoded (a sink of openOutput, write.ts).
import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rgbaOf } from './frames';
import { encodePngAsync } from './png';

import { cannotWrite, ensureDir, tempName, type FrameSink, type OutputTarget, type SinkContext, type WriteOptions } from './sink';

export function openFramesSink(t: Extract<OutputTarget, { kind: 'frames' }>, o: WriteOptions, c: SinkContext): FrameSink {
  const { frames, H, W, n, accept, complete, tick } = c;
  const created = !existsSync(t.path);
  try {
    ensureDir(t.path);
  } catch (e) {
    throw cannotWrite(t.path, e);
  }
  const digits = Math.max(4, String(frames - 1).length);
  // frames written under their names, temporary files being written, writes not yet settled
  const written = new Set<string>(),
    partial = new Set<string>(),
    pending = new Set<Promise<void>>();
  let stopped = false,
    writtenCount = 0;
  const remove = () => {
    for (const f of [...partial, ...written]) rmSync(f, { force: true });
  };
  const abort = async () => {
    stopped = true;
    remove(); // before the first await: a second Ctrl-C exits right after this call
    await Promise.allSettled([...pending]);
    remove(); // what finished meanwhile
    written.clear();
    if (created)
      try {
        rmdirSync(t.path); // only when empty: nothing else of the user's is touched
      } catch {
        /* not empty or gone */
      }
  };
  return {
    frame(index, rgb) {
      accept(index, rgb);
      const name = join(t.path, `frame_${String(index).padStart(digits, '0')}.png`);
      const tmp = tempName(name);
      const job = (async () => {
        const bytes = await encodePngAsync(rgbaOf(rgb, n), W, H); // deflate on the thread pool: the decode goes on
        if (stopped) return;
        partial.add(tmp);
        try {
          await writeFile(tmp, bytes);
          if (!stopped) {
            await rename(tmp, name);
            written.add(name);
            tick(++writtenCount);
          }
        } catch (e) {
          throw cannotWrite(name, e);
        } finally {
          partial.delete(tmp);
          if (stopped) rmSync(tmp, { force: true });
        }
      })();
      pending.add(job);
      const settle = () => void pending.delete(job);
      job.then(settle, settle);
      return job;
    },
    async finish() {
      try {
        for (const r of await Promise.allSettled([...pending])) if (r.status === 'rejected') throw r.reason;
        complete();
      } catch (e) {
        await abort();
        throw e;
      }
      return { files: frames, description: `${frames} PNG frames frame_${'0'.repeat(digits)}.png ... ${W}x${H}` };
    },
    abort,
  };
}
