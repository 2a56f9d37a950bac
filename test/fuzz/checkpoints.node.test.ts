// The checkpoint readers under attack (issue 23): the restricted pickle reader, the zip directory and the
// torch.save reader (weights and .pt latents), fuzzed as test/fuzz/parsers.node.test.ts fuzzes the older
// parsers: random bytes and byte mutations of real torch.save files (test/fixtures/checkpoints) end in a
// DecoderError 'bad-input' with one line, or in tensors that lie inside the file; each within a time bound.
//   WAN_VAE_FUZZ_SECONDS=120 npx vitest run --project node test/fuzz/checkpoints.node.test.ts
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FUZZ_SEED, fuzzBudget } from './budget';
import { DecoderError } from '../../src/gpu/errors';
import { readLatents } from '../../src/model/latents';
import { unpickle } from '../../src/model/pickle';
import { bytesSource } from '../../src/model/weight-source';
import { openWeights } from '../../src/model/weights';
import { entryDataOffset, readZipDirectory } from '../../src/model/zip';

const budget = fuzzBudget;
const MAX_MS = 2000;
const stats = { runs: 0, ok: 0, typed: 0, slowestMs: 0 };
const fixture = (n: string) => new Uint8Array(readFileSync(new URL(`../fixtures/checkpoints/${n}`, import.meta.url)));

async function typedOrOk<T>(fn: () => Promise<T> | T, ok: (v: T) => void = () => undefined): Promise<void> {
  stats.runs++;
  const t0 = performance.now();
  let v: T;
  try {
    v = await fn();
  } catch (e) {
    if (!(e instanceof DecoderError) || e.code !== 'bad-input') throw new Error(`untyped failure: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    if (e.message.includes('\n')) throw new Error(`a multi-line error message: ${e.message}`);
    stats.typed++;
    return;
  } finally {
    const ms = performance.now() - t0;
    stats.slowestMs = Math.max(stats.slowestMs, ms);
    if (ms > MAX_MS) throw new Error(`parse took ${ms.toFixed(0)} ms`);
  }
  ok(v);
  stats.ok++;
}

const mutate = (b: Uint8Array) =>
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).chain((edits) =>
    fc.constantFrom('flip', 'cut', 'both').map((how) => {
      let out = b.slice();
      if (how !== 'cut') for (const [at, v] of edits) out[at % out.length] = v;
      if (how !== 'flip') out = out.subarray(0, edits[0]![0] % out.length);
      return out;
    }),
  );

const pklOf = async (b: Uint8Array) => {
  const src = bytesSource(b, 'f');
  const e = [...(await readZipDirectory(src)).values()].find((x) => x.name.endsWith('data.pkl'))!;
  return b.slice(await entryDataOffset(src, e), (await entryDataOffset(src, e)) + e.size);
};

describe('fuzz: the restricted pickle reader', () => {
  it('random bytes and mutated data.pkl of real torch.save files: typed error or a value', async () => {
    const pkls = [await pklOf(fixture('latents-dict.pt')), await pklOf(fixture('latents.pt')), await pklOf(fixture('nested.pth'))];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(...pkls).chain(mutate)), async (b) => typedOrOk(() => unpickle(b, 'x.pkl'))),
      budget,
    );
  });
});

describe('fuzz: torch.save files (zip directory, data.pkl, storages)', () => {
  it('mutated .pt latents: typed error or latents inside the file', async () => {
    const files = [fixture('latents.pt'), fixture('latents-dict.pt')];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files).chain(mutate), async (b) =>
        typedOrOk(
          () => readLatents(b, 'x.pt'),
          (l) => expect(l.data.byteLength).toBeLessThanOrEqual(b.byteLength),
        ),
      ),
      budget,
    );
  });

  it('mutated checkpoints: typed error or decoder tensors inside the file', async () => {
    const full = fixture('full.pth');
    await fc.assert(
      fc.asyncProperty(mutate(full), async (b) =>
        typedOrOk(
          async () => {
            const w = await openWeights(bytesSource(b, 'x.pth'));
            let n = 0;
            for (const t of w.map.values()) n += t.data.byteLength;
            return n;
          },
          (n) => expect(n).toBeLessThanOrEqual(b.byteLength),
        ),
      ),
      { ...budget, numRuns: 300 },
    );
  }, 60_000);

  it('reports the run', () => {
    console.log(`checkpoint fuzz (seed ${FUZZ_SEED}): ${stats.runs} inputs, ${stats.ok} parsed, ${stats.typed} typed errors, slowest ${stats.slowestMs.toFixed(1)} ms`);
    expect(stats.runs).toBeGreaterThan(0);
  });
});
