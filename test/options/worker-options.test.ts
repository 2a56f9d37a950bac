// The worker surface of the options schema (browser: a real Web Worker through comlink). Every API
// option with a wrong value, posted to the worker's plan() and fit(), comes back as DecoderError
// 'bad-input' with the schema's one-line text, "decode option 'k' <problem>"; valid values plan. The
// node test (schema.node.test.ts) covers the CLI, WanVaeDecoder and the recipe parser.
// How it fails a wrong implementation: a worker that forwarded options unchecked (fit() calls fitPlan
// directly) would plan with a bogus value or fail with another code or text; a lost DecoderError code
// across the worker boundary reads as 'internal'.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { problem } from '../../src/options/check';
import { OPTION_KEYS, OPTIONS } from '../../src/options/schema';
import { createDecoder } from '../../src/worker/client';
import { isBrowser } from '../helpers/env';

const BAD = 'bogus-value';

describe.runIf(isBrowser)('the worker checks the decode options against the schema', () => {
  it("plan() and fit() answer a wrong value of every API option with the schema's one-line error", async () => {
    const dec = await createDecoder(null);
    try {
      const shape: [number, number, number, number] = [16, 1, 8, 8];
      const limits = { maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 28 };
      const req = { limits, precisions: ['f32' as const], tile: 'none' as const };
      // valid options plan, and reach the planner (no GPU needed for a plan): cache off keeps no cache
      // rings, so its peak is below cache on's; a worker that dropped the option plans both alike
      const on = (await dec.plan(shape, { cache: 'on', norm: 'fused' })).plannedPeakGpuBytes;
      const off = (await dec.plan(shape, { cache: 'off', norm: 'fused' })).plannedPeakGpuBytes;
      expect(off).toBeGreaterThan(0);
      expect(off).toBeLessThan(on);
      for (const key of OPTION_KEYS.filter((k) => OPTIONS[k].api === true)) {
        const want = `decode option '${key}' ${problem(key, BAD, 'api')}`;
        for (const call of [() => dec.plan(shape, { [key]: BAD }), () => dec.fit(shape, { [key]: BAD }, req)]) {
          const err = await call().then(
            () => null,
            (e: unknown) => e,
          );
          expect(err, key).toBeInstanceOf(DecoderError);
          expect((err as DecoderError).code, key).toBe('bad-input');
          expect((err as DecoderError).message, key).toBe(want);
        }
      }
    } finally {
      dec.dispose();
    }
  });
});
