// Checkpoints by range reads (issue 23): torch.save fixtures (test/fixtures/checkpoints/make.py, real
// PyTorch) read by the restricted pickle reader give the same f32 weights, bit for bit, and the same CPU
// reference decode as the same weights in safetensors; a full checkpoint reads only the decoder's bytes;
// .pt latents; damaged, lying and forbidden files give one clear line.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WanVaeDecoder } from '../../src/decoder';
import { DecoderError } from '../../src/gpu/errors';
import { readLatents } from '../../src/model/latents';
import { unpickle } from '../../src/model/pickle';
import { bytesSource } from '../../src/model/weight-source';
import { openWeights, type Weights } from '../../src/model/weights';

const dir = new URL('../fixtures/checkpoints/', import.meta.url);
const file = (n: string) => new Uint8Array(readFileSync(new URL(n, dir)));
const open = (n: string, b = file(n)) => openWeights(bytesSource(b, n));

function sameWeights(a: Weights, b: Weights): void {
  expect([...a.map.keys()].sort()).toEqual([...b.map.keys()].sort());
  for (const [k, w] of a.map) {
    const v = b.get(k);
    expect(v.shape, k).toEqual(w.shape);
    expect(Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength).equals(Buffer.from(w.data.buffer, w.data.byteOffset, w.data.byteLength)), k).toBe(true);
  }
}

async function oneLine(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(DecoderError);
  expect((e as DecoderError).code).toBe('bad-input');
  expect((e as Error).message).not.toContain('\n');
  return (e as Error).message;
}

describe('torch.save checkpoints', () => {
  it('full.pth and nested.pth hold the safetensors weights bit for bit, and decode the same', async () => {
    const st = await open('w.safetensors');
    const full = await open('full.pth');
    const nested = await open('nested.pth');
    sameWeights(st, full);
    sameWeights(st, nested);
    expect(full.load?.format).toBe('pytorch');
    const lat = await readLatents(file('latents.pt'), 'latents.pt');
    const decode = async (w: Weights) => (await new WanVaeDecoder(w).decode(lat, { backend: 'cpu', latentStats: 'none' })).video!;
    const a = await decode(st),
      b = await decode(full),
      c = await decode(nested);
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    expect(Buffer.from(c.buffer).equals(Buffer.from(a.buffer))).toBe(true);
  }, 120_000);

  it('a full checkpoint (encoder + decoder) reads only the decoder bytes', async () => {
    const b = file('full.pth');
    const src = bytesSource(b, 'full.pth');
    const w = await openWeights(src);
    const index = src.bytesRead;
    for (const t of w.map.values()) void t.data;
    const decoderBytes = w.load!.decoderBytes;
    // header reads (zip end record <= 64 KiB, directory, data.pkl, local headers) plus each decoder tensor once
    expect(src.bytesRead - index).toBe(decoderBytes);
    expect(index).toBeLessThan(100_000);
    // the encoder (445,248 bytes of it in the fixture) is never read
    expect(src.bytesRead).toBeLessThan(decoderBytes + 100_000);
    expect(b.byteLength - decoderBytes).toBeGreaterThan(445_248);
  });

  it('.pt latents: a tensor [1, z, T, h, w] or a dict holding one', async () => {
    const a = await readLatents(file('latents.pt'), 'latents.pt');
    const d = await readLatents(file('latents-dict.pt'), 'latents-dict.pt');
    expect(a.shape).toEqual([4, 3, 4, 6]);
    expect(d.shape).toEqual([4, 3, 4, 6]);
    expect(Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).equals(Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength))).toBe(true);
    expect(d.format).toBe('pt');
  });

  it('damaged files: one clear line', async () => {
    const b = file('full.pth');
    expect(await oneLine(open('cut.pth', b.subarray(0, b.byteLength - 1000)))).toMatch(/end-of-central-directory|past the end|truncated/);
    expect(await oneLine(open('cut.pth', b.subarray(0, 100_000)))).toMatch(/cut.pth/);
    // a compressed entry: method 8 written into every central directory record
    const z = b.slice();
    for (let i = 0; i + 4 < z.length; i++) if (z[i] === 0x50 && z[i + 1] === 0x4b && z[i + 2] === 0x01 && z[i + 3] === 0x02) z[i + 10] = 8;
    expect(await oneLine(open('deflated.pth', z))).toMatch(/compressed \(method 8\)/);
    // a storage key holding a line break (the pickle's BINUNICODE '0' -> '\n'): escaped, not a second line
    const k = file('latents-dict.pt');
    const at = k.findIndex((_, i) => [0x58, 1, 0, 0, 0, 0x30, 0x71].every((v, j) => k[i + j] === v));
    expect(at).toBeGreaterThan(0);
    k[at + 5] = 0x0a;
    expect(await oneLine(readLatents(k, 'key.pt'))).toMatch(/storage data\/\\n is not in the archive/);
    // the legacy format (a bare pickle)
    expect(await oneLine(open('legacy.pth', new Uint8Array([0x80, 2, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e, 0, 0, 0, 0, 0])))).toMatch(
      /legacy torch.save format/,
    );
  });

  it('the pickle reader refuses what a state dict never holds, naming it', () => {
    const bad = (bytes: number[] | string) => {
      const b = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes);
      try {
        unpickle(b, 'x.pkl');
      } catch (e) {
        expect(e).toBeInstanceOf(DecoderError);
        expect((e as Error).message).not.toContain('\n');
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    // os.system('echo') as protocol 0: GLOBAL os system
    expect(bad("cos\nsystem\n(S'echo'\ntR.")).toMatch(/os\.system.*refused/);
    expect(bad([0x80, 2, 0x8c, 5, ...new TextEncoder().encode('torch'), 0x8c, 4, ...new TextEncoder().encode('load'), 0x93, 0x2e])).toMatch(/torch\.load.*refused/);
    expect(bad([0x80, 2, 0x69])).toMatch(/opcode 0x69.*refused/); // INST
    expect(bad([0x80, 2, 0x81])).toMatch(/opcode 0x81/); // NEWOBJ
    expect(bad([0x80, 2, 0x58, 0xff, 0xff, 0xff, 0x7f])).toMatch(/runs past its end/); // a lying string length
    expect(bad([0x80, 2, 0x7d])).toMatch(/without STOP/);
  });
});
