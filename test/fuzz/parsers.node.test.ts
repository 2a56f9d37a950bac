// Parsers under attack (issue 13): property-based and mutation fuzzing (fast-check) of the safetensors,
// npy, latents, weights, recipe-JSON and URL-hash parsers. Every input ends in a typed error
// (DecoderError 'bad-input' for files; an Error with a one-line message naming the recipe for the demo's
// parsers) or a success whose tensors lie inside the file (no tensor larger than the file from a lying
// header), each within a time bound (no hang).
// Time-bounded, with a fixed seed (test/fuzz/budget.ts: WAN_VAE_FUZZ_SECONDS, WAN_VAE_FUZZ_SEED); a longer run:
//   WAN_VAE_FUZZ_SECONDS=120 npx vitest run --project node test/fuzz/parsers.node.test.ts
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FUZZ_SECONDS as SECONDS, FUZZ_SEED, fuzzBudget } from './budget';
import { DecoderError } from '../../src/gpu/errors';
import { parseLatents, parseStats } from '../../src/model/latents';
import { parseNpy, writeNpy } from '../../src/model/npy';
import { checkSafetensorsPrefix, parseSafetensors } from '../../src/model/safetensors';
import { loadWeights } from '../../src/model/weights';
import { inferConfig } from '../../src/model/config';
import { parseRecipe, recipeFromHash, recipeToHash, inlineLatents, type Recipe } from '../../src/demo/recipe';
import { DEFAULT_OPTIONS } from '../../src/demo/options';

/** the value type of an arbitrary */
type Arb<A> = A extends fc.Arbitrary<infer T> ? T : never;

const budget = fuzzBudget;
/** the slowest single parse allowed: a hang or a blow-up shows here (generous: GC pauses and 2 shared cores, the slowest seen is reported) */
const MAX_MS = 2000;
const stats = { runs: 0, ok: 0, typed: 0, slowestMs: 0 };

/** Runs `fn`: success (checked by `ok`) or a DecoderError 'bad-input' with a one-line message; anything else fails. */
function typedOrOk<T>(fn: () => T, ok: (v: T) => void = () => undefined): void {
  stats.runs++;
  const t0 = performance.now();
  let v: T;
  try {
    v = fn();
  } catch (e) {
    const ms = performance.now() - t0;
    stats.slowestMs = Math.max(stats.slowestMs, ms);
    if (!(e instanceof DecoderError) || e.code !== 'bad-input') throw new Error(`untyped failure: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    if (e.message.includes('\n')) throw new Error(`a multi-line error message: ${e.message}`);
    if (ms > MAX_MS) throw new Error(`parse took ${ms.toFixed(0)} ms`);
    stats.typed++;
    return;
  }
  const ms = performance.now() - t0;
  stats.slowestMs = Math.max(stats.slowestMs, ms);
  if (ms > MAX_MS) throw new Error(`parse took ${ms.toFixed(0)} ms`);
  ok(v);
  stats.ok++;
}

// ---- generators of valid files, then mutations of them ----

const DTYPE_BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8 };
const shapeArb = fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 0, maxLength: 5 });
const tensorArb = fc.record({ name: fc.string({ minLength: 1, maxLength: 12 }), dtype: fc.constantFrom('F32', 'F16', 'BF16', 'F64', 'I64'), shape: shapeArb });

/** A header object and data of a valid safetensors file. */
function stParts(tensors: { name: string; dtype: string; shape: number[] }[]): { header: Record<string, unknown>; data: Uint8Array } {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let off = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[t.dtype]!;
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [off, off + n] };
    off += n;
  }
  const data = new Uint8Array(off);
  for (let i = 0; i < off; i++) data[i] = (i * 37) & 0xff;
  return { header, data };
}

function stBytes(header: unknown, data: Uint8Array, lenOverride?: bigint): Uint8Array {
  const hb = new TextEncoder().encode(JSON.stringify(header) ?? 'null');
  const out = new Uint8Array(8 + hb.length + data.length);
  new DataView(out.buffer).setBigUint64(0, lenOverride ?? BigInt(hb.length), true);
  out.set(hb, 8);
  out.set(data, 8 + hb.length);
  return out;
}

/** Byte-level mutations: flips, overwrites, truncation, extension. */
const byteMutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ maxLength: 64 }) }),
);

function mutateBytes(b: Uint8Array, ms: Arb<typeof byteMutation>[]): Uint8Array {
  let out = b.slice();
  for (const m of ms) {
    if (m.kind === 'append') {
      const n = new Uint8Array(out.length + m.bytes.length);
      n.set(out);
      n.set(m.bytes, out.length);
      out = n;
    } else if (!out.length) continue;
    else if (m.kind === 'truncate') out = out.slice(0, m.at % out.length);
    else if (m.kind === 'flip') out[m.at % out.length]! ^= 1 << m.bit;
    else out[m.at % out.length] = m.value;
  }
  return out;
}

/** Lies a header can tell: a field of a tensor entry replaced by anything JSON can hold. */
const fieldLie = fc.record({
  which: fc.nat(),
  field: fc.constantFrom('dtype', 'shape', 'data_offsets', 'entry', '__metadata__'),
  value: fc.oneof(
    fc.jsonValue(),
    fc.array(fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53), fc.constant(-1), fc.constant(1e308)), { maxLength: 6 }),
    fc.tuple(fc.nat(), fc.oneof(fc.nat(), fc.constant(2 ** 40), fc.constant(2 ** 53 + 2))),
  ),
});

function lieAbout(header: Record<string, unknown>, lie: Arb<typeof fieldLie>): Record<string, unknown> {
  const h = structuredClone(header);
  if (lie.field === '__metadata__') {
    h.__metadata__ = lie.value;
    return h;
  }
  const names = Object.keys(h).filter((k) => k !== '__metadata__');
  if (!names.length) return h;
  const name = names[lie.which % names.length]!;
  if (lie.field === 'entry') h[name] = lie.value;
  else (h[name] as Record<string, unknown>)[lie.field] = lie.value;
  return h;
}

/** A parsed safetensors file is consistent: every tensor's bytes inside the file, numel x dtype size of them. */
function checkSt(file: ReturnType<typeof parseSafetensors>, size: number): void {
  for (const t of file.tensors.values()) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    expect(t.shape.every((d) => Number.isSafeInteger(d) && d >= 0)).toBe(true);
    expect(t.bytes.byteLength).toBe(numel * DTYPE_BYTES[t.dtype]!);
    expect(t.bytes.byteLength).toBeLessThanOrEqual(size);
  }
}

describe('fuzz: safetensors', () => {
  it('random bytes: typed error or a consistent file', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (b) =>
        typedOrOk(
          () => parseSafetensors(b, 'fuzz.safetensors'),
          (f) => checkSt(f, b.length),
        ),
      ),
      budget,
    );
  });

  it('valid files parse; header lies and byte mutations give typed errors or consistent files', () => {
    fc.assert(
      fc.property(
        fc.array(tensorArb, { maxLength: 4 }),
        fc.option(fieldLie),
        fc.array(byteMutation, { maxLength: 3 }),
        fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
        (ts, lie, muts, len) => {
          const { header, data } = stParts(ts);
          const clean = stBytes(header, data);
          if (!lie && !muts.length && len === null) {
            const f = parseSafetensors(clean, 'valid.safetensors');
            checkSt(f, clean.length);
            return;
          }
          const bytes = mutateBytes(stBytes(lie ? lieAbout(header, lie) : header, data, len ?? undefined), muts);
          typedOrOk(
            () => parseSafetensors(bytes, 'fuzz.safetensors'),
            (f) => checkSt(f, bytes.length),
          );
          // the readers built on it: latents, statistics, weights (+ config inference)
          typedOrOk(
            () => parseLatents(bytes, 'fuzz.safetensors'),
            (l) => expect(l.data.length * 2).toBeLessThanOrEqual(bytes.length * 4),
          );
          typedOrOk(() => parseStats(bytes, 'fuzz.safetensors'));
          typedOrOk(() => inferConfig(loadWeights(bytes, 'fuzz.safetensors')));
        },
      ),
      budget,
    );
  });
});

describe('fuzz: a safetensors download checked from its first bytes and Content-Length', () => {
  it('asks for at most the header, never more than the size; agrees with the whole-file parse', () => {
    fc.assert(
      fc.property(fc.array(tensorArb, { maxLength: 4 }), fc.option(fieldLie), fc.array(byteMutation, { maxLength: 3 }), fc.integer({ min: -64, max: 64 }), (ts, lie, muts, sizeLie) => {
        const { header, data } = stParts(ts);
        const bytes = mutateBytes(stBytes(lie ? lieAbout(header, lie) : header, data), muts);
        const total = Math.max(0, bytes.length + (sizeLie % 3 === 0 ? sizeLie : 0));
        let got: Uint8Array = bytes.subarray(0, Math.min(8, bytes.length));
        let verdict: ReturnType<typeof checkSafetensorsPrefix> | null = null;
        typedOrOk(() => {
          for (let round = 0; round < 3; round++) {
            verdict = checkSafetensorsPrefix(got, total, 'download.safetensors');
            if (!('need' in verdict)) return verdict;
            expect(verdict.need).toBeLessThanOrEqual(total);
            if (verdict.need > bytes.length) return verdict; // the body ends before the header: a truncated download
            got = bytes.subarray(0, verdict.need);
          }
          throw new Error('more than two rounds to read a header');
        });
        // when the whole file arrived with a true Content-Length, the download check and the parse agree
        if (total === bytes.length && verdict && !('need' in verdict)) {
          const f = parseSafetensors(bytes, 'download.safetensors');
          expect(f.tensors.size).toBe((verdict as { tensors: number }).tensors);
        }
      }),
      budget,
    );
  });

  it('a Content-Length smaller than the header says is refused before the body', () => {
    const { header, data } = stParts([{ name: 'decoder.conv1.weight', dtype: 'F32', shape: [4, 4] }]);
    const bytes = stBytes(header, data);
    const head = bytes.subarray(0, bytes.length - data.length);
    expect(checkSafetensorsPrefix(head, bytes.length, 'w.safetensors')).toEqual({ tensors: 1, dataBytes: 64 });
    expect(() => checkSafetensorsPrefix(head, bytes.length - 1, 'w.safetensors')).toThrow(/decoder\.conv1\.weight.*expected 64 bytes inside 63/);
    expect(checkSafetensorsPrefix(head.subarray(0, 8), bytes.length, 'w.safetensors')).toEqual({ need: head.length });
  });
});

describe('fuzz: npy', () => {
  const npyArb = fc.record({ shape: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 5 }), seed: fc.nat() });
  /** Header-text lies: the dict entries a reader matches with regular expressions. */
  const headerLie = fc.oneof(
    fc.record({ key: fc.constantFrom('descr', 'fortran_order', 'shape'), text: fc.string({ maxLength: 40 }) }),
    fc.record({ key: fc.constant('shape'), text: fc.array(fc.oneof(fc.integer(), fc.constant(2 ** 53), fc.constant(-1), fc.constant(1e300)), { maxLength: 6 }).map((a) => `(${a.join(', ')})`) }),
    fc.record({ key: fc.constant('descr'), text: fc.constantFrom("'<f4'", "'<f2'", "'<f8'", "'>f4'", "'<i8'", "'|b1'", "'<c8'") }),
  );

  function lieNpy(b: Uint8Array, lie: Arb<typeof headerLie>): Uint8Array {
    const hl = new DataView(b.buffer).getUint16(8, true);
    const text = new TextDecoder().decode(b.subarray(10, 10 + hl));
    const re = lie.key === 'shape' ? /'shape':\s*\([^)]*\)/ : lie.key === 'descr' ? /'descr':\s*'[^']*'/ : /'fortran_order':\s*\w+/;
    const header = new TextEncoder().encode(text.replace(re, `'${lie.key}': ${lie.text}`));
    const out = new Uint8Array(10 + header.length + (b.length - 10 - hl));
    out.set(b.subarray(0, 8));
    new DataView(out.buffer).setUint16(8, header.length, true);
    out.set(header, 10);
    out.set(b.subarray(10 + hl), 10 + header.length);
    return out;
  }

  const checkNpy = (size: number) => (a: ReturnType<typeof parseNpy>) => {
    expect(a.shape.every((d) => Number.isSafeInteger(d) && d >= 0)).toBe(true);
    expect(a.data.length).toBe(a.shape.reduce((x, y) => x * y, 1));
    // at least 2 bytes per value in the file (f16), so never more values than half the file
    expect(a.data.length * 2).toBeLessThanOrEqual(size);
  };

  it('random bytes behind the magic: typed error or a consistent array', () => {
    const magic = new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), fc.boolean(), (tail, withMagic) => {
        const b = withMagic ? new Uint8Array([...magic, ...tail]) : tail;
        typedOrOk(() => parseNpy(b, 'fuzz.npy'), checkNpy(b.length));
        typedOrOk(() => parseLatents(b, 'fuzz.npy'));
      }),
      budget,
    );
  });

  it('valid files round-trip; header lies and byte mutations give typed errors or consistent arrays', () => {
    fc.assert(
      fc.property(npyArb, fc.option(headerLie), fc.array(byteMutation, { maxLength: 3 }), (a, lie, muts) => {
        const n = a.shape.reduce((x, y) => x * y, 1);
        const data = Float32Array.from({ length: n }, (_, i) => Math.sin(i + a.seed));
        const clean = writeNpy(a.shape, data);
        if (!lie && !muts.length) {
          const r = parseNpy(clean, 'valid.npy');
          expect(r.shape).toEqual(a.shape);
          expect(Array.from(r.data)).toEqual(Array.from(data));
          return;
        }
        const bytes = mutateBytes(lie ? lieNpy(clean, lie) : clean, muts);
        typedOrOk(() => parseNpy(bytes, 'fuzz.npy'), checkNpy(bytes.length));
        typedOrOk(() => parseLatents(bytes, 'fuzz.npy'));
      }),
      budget,
    );
  });
});

describe('fuzz: the demo recipe (JSON file) and the #recipe= URL hash', () => {
  /** The demo's parsers throw Error (not a DecoderError): one line, naming the recipe; never TypeError/RangeError/URIError/SyntaxError. */
  function recipeTypedOrOk(fn: () => Recipe | null): void {
    stats.runs++;
    const t0 = performance.now();
    try {
      const r = fn();
      if (r) {
        expect(r.app).toBe('wan-vae-webgpu demo');
        if (r.latents.kind === 'inline') {
          try {
            const l = inlineLatents(r.latents);
            expect(l.data.length).toBe(r.latents.shape.reduce((a, b) => a * b, 1));
          } catch (e) {
            if (!(e instanceof Error) || e.constructor !== Error) throw new Error(`inline latents: untyped failure ${String(e)}`);
          }
        }
      }
      stats.ok++;
    } catch (e) {
      if (!(e instanceof Error) || (e.constructor !== Error && !(e instanceof DecoderError))) throw new Error(`untyped failure: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
      if (!/recipe/i.test(e.message) || e.message.includes('\n')) throw new Error(`unclear message: ${e.message}`);
      stats.typed++;
    }
    const ms = performance.now() - t0;
    stats.slowestMs = Math.max(stats.slowestMs, ms);
    if (ms > MAX_MS) throw new Error(`recipe parse took ${ms.toFixed(0)} ms`);
  }

  const valid: Recipe = {
    app: 'wan-vae-webgpu demo',
    version: 1,
    weights: { kind: 'default' },
    latents: { kind: 'inline', name: 'l', shape: [1, 1, 1, 2], f32: 'AACAPwAAAEA=' },
    options: DEFAULT_OPTIONS,
    fps: 16,
  };
  const pathArb = fc.array(fc.constantFrom('app', 'version', 'weights', 'latents', 'options', 'fps', 'kind', 'url', 'name', 'shape', 'f32', 'key', 'tile', 'budget', 'normChunk'), {
    minLength: 1,
    maxLength: 3,
  });

  function setPath(o: unknown, path: string[], v: unknown): unknown {
    if (!path.length) return v;
    const base = o && typeof o === 'object' ? { ...(o as Record<string, unknown>) } : {};
    base[path[0]!] = setPath(base[path[0]!], path.slice(1), v);
    return base;
  }

  it('JSON values and mutated recipes: typed error or a sane recipe', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.tuple(pathArb, fc.jsonValue()).map(([p, v]) => setPath(valid, p, v)),
        ),
        (value) => recipeTypedOrOk(() => parseRecipe(value)),
      ),
      budget,
    );
  });

  it('URL hashes: random text, mutated and truncated links: typed error, null or a sane recipe', () => {
    const link = recipeToHash(valid);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ maxLength: 200 }).map((s) => `#recipe=${s}`),
          fc.tuple(fc.nat(), fc.string({ maxLength: 8 })).map(([at, s]) => link.slice(0, at % link.length) + s + link.slice(at % link.length)),
          fc.nat().map((at) => link.slice(0, at % link.length)),
          fc.tuple(pathArb, fc.jsonValue()).map(([p, v]) => `#recipe=${encodeURIComponent(JSON.stringify(setPath(valid, p, v)) ?? '')}`),
        ),
        (hash) => recipeTypedOrOk(() => recipeFromHash(hash)),
      ),
      budget,
    );
  });

  it('reports the run', () => {
    console.log(`fuzz (seed ${FUZZ_SEED}): ${stats.runs} parses (${SECONDS} s per property): ${stats.ok} accepted, ${stats.typed} typed errors, slowest ${stats.slowestMs.toFixed(1)} ms`);
    expect(stats.runs).toBeGreaterThan(0);
  });
});
