// The CLI on bad files and bad values, as a user meets them: every case gives exit code 2 and exactly one
// stderr line `wan-vae: bad-input: ...` naming the file / tensor / flag with expected vs actual (no stack
// trace: main() prints one line per error), and leaves no output file and no temporary file. In-process
// (main(), --backend cpu: each case fails before any decode), so the whole table costs about a second.
// Why a wrong implementation fails: before this file, a tensor of the wrong shape but as many values was
// decoded (exit 0, a wrong video); a non-float tensor was reported "missing"; an empty .npy was called "too
// short for a safetensors header"; --out under /proc hung forever in Node's recursive mkdir; an unwritable
// .png was found only after the decode; --frames abc was told about 1 + 4k; --latent-size 99999x99999x99999
// was an internal error (a typed-array length).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/node/cli';
import { writeNpy } from '../../src/model/npy';
import { writeSafetensors } from '../../src/model/safetensors';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';

let d = '';
const shape = [16, 2, 4, 4];
const lat = syntheticLatents(16, 2, 4, 4);

/** A .npy file of `body` under a hand-written header (dtype, order, shape as numpy writes them). */
function npy(descr: string, fortran: boolean, shp: number[], body: Uint8Array): Uint8Array {
  let h = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shp.join(', ')}${shp.length === 1 ? ',' : ''}), }`;
  h += ' '.repeat((64 - ((11 + h.length) % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + h.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 255, h.length >> 8]);
  for (let i = 0; i < h.length; i++) out[10 + i] = h.charCodeAt(i);
  out.set(body, 10 + h.length);
  return out;
}

/** The safetensors file `bytes` with tensor `name`'s dtype string replaced (same length: offsets stay valid). */
function retype(bytes: Uint8Array, name: string, from: string, to: string): Uint8Array {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const h = new TextDecoder().decode(bytes.subarray(8, 8 + n));
  const at = h.indexOf(`"${from}"`, h.indexOf(`"${name}"`));
  const out = bytes.slice();
  out.set(new TextEncoder().encode(`"${to}"`), 8 + at);
  return out;
}

beforeAll(() => {
  d = mkdtempSync(join(tmpdir(), 'wan-vae-bad-'));
  const tensors = Object.fromEntries([...syntheticWeights({ version: '2.1', dim: 4, zDim: 16, seed: 9 }).map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]));
  const w = writeSafetensors(tensors);
  writeFileSync(join(d, 'w.safetensors'), w);
  const head = tensors['decoder.head.2.weight']!;
  writeFileSync(join(d, 'flat-head.safetensors'), writeSafetensors({ ...tensors, 'decoder.head.2.weight': { shape: [head.shape[0]!, head.shape[1]!, 1, 1, 27], data: head.data } }));
  writeFileSync(join(d, 'int-head.safetensors'), retype(w, 'decoder.head.2.weight', 'F32', 'I32'));
  const good = writeNpy(shape, lat);
  writeFileSync(join(d, 'l.npy'), good);
  writeFileSync(join(d, 'cut.npy'), good.subarray(0, good.length - 100));
  writeFileSync(join(d, 'empty.npy'), new Uint8Array(0));
  const f32 = new Uint8Array(lat.buffer);
  writeFileSync(join(d, 'fortran.npy'), npy('<f4', true, shape, f32));
  writeFileSync(join(d, 'int32.npy'), npy('<i4', false, shape, f32));
  writeFileSync(join(d, 'rank2.npy'), writeNpy([16, 32], lat.subarray(0, 512)));
  const nan = lat.slice();
  nan[77] = NaN; // [channel 2, frame 0, y 3, x 1] of [16, 2, 4, 4]
  writeFileSync(join(d, 'nan.npy'), writeNpy(shape, nan));
  const inf = lat.slice();
  inf[16 * 2 * 16 - 1] = Infinity; // the last value
  writeFileSync(join(d, 'inf.npy'), writeNpy(shape, inf));
  writeFileSync(join(d, 'int-latents.safetensors'), retype(writeSafetensors({ latents: { shape, data: lat } }), 'latents', 'F32', 'I32'));
  mkdirSync(join(d, 'folder'));
});
afterAll(() => rmSync(d, { recursive: true, force: true }));

/** main(argv) in `d`: its exit code and stderr lines. */
async function run(argv: string[]): Promise<{ code: number; err: string[] }> {
  const err: string[] = [];
  const cwd = process.cwd();
  const e = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(...a.join(' ').split('\n')));
  const l = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  process.chdir(d);
  try {
    return { code: await main(argv), err };
  } finally {
    process.chdir(cwd);
    e.mockRestore();
    l.mockRestore();
  }
}

const dec = (weights: string, latents: string, out = 'o.gif', ...more: string[]) => [
  'decode',
  '--weights',
  weights,
  '--latents',
  latents,
  '--latent-stats',
  'none',
  '--backend',
  'cpu',
  '--progress',
  'off',
  '--out',
  out,
  ...more,
];

describe('wan-vae on bad files and values: one line, exit code 2, nothing written', () => {
  const cases: [string, string[], RegExp][] = [
    ['truncated .npy', dec('w.safetensors', 'cut.npy'), /cut\.npy: shape \[16,2,4,4\] needs 2048 data bytes, file has 1948; truncated\?/],
    ['empty .npy', dec('w.safetensors', 'empty.npy'), /empty\.npy: not a \.npy file/],
    ['.npy in Fortran order', dec('w.safetensors', 'fortran.npy'), /fortran\.npy: Fortran-order arrays are not supported/],
    ['.npy of int32', dec('w.safetensors', 'int32.npy'), /int32\.npy: dtype "<i4" not supported \(expected little-endian float32/],
    ['.npy of rank 2', dec('w.safetensors', 'rank2.npy'), /rank2\.npy: latents have shape \[16,32\], expected \[z, T, h, w\]/],
    ['latents with a NaN', dec('w.safetensors', 'nan.npy'), /nan\.npy: latents hold a non-finite value \(NaN\) at \[channel, frame, y, x\] = \[2,0,3,1\] \(shape \[16,2,4,4\]\)/],
    ['latents with an Infinity', dec('w.safetensors', 'inf.npy'), /inf\.npy: latents hold a non-finite value \(Infinity\) at \[channel, frame, y, x\] = \[15,1,3,3\]/],
    ['latents of an int dtype (safetensors)', dec('w.safetensors', 'int-latents.safetensors'), /int-latents\.safetensors: tensor 'latents' has dtype I32, expected a float dtype/],
    [
      'a weight of the wrong shape (as many values)',
      dec('flat-head.safetensors', 'l.npy'),
      /flat-head\.safetensors: tensor decoder\.head\.2\.weight has shape \[3,4,1,1,27\], expected \[cout, cin, 3, 3, 3\]/,
    ],
    ['a weight of an int dtype', dec('int-head.safetensors', 'l.npy'), /int-head\.safetensors: tensor decoder\.head\.2\.weight has dtype I32, expected a float dtype/],
    ['a folder for --weights', dec('folder', 'l.npy'), /cannot read weights file folder: it is a folder, not a file \(EISDIR\)/],
    ['a folder for --latents', dec('w.safetensors', 'folder'), /cannot read latents file folder: it is a folder, not a file \(EISDIR\)/],
    ['--out under a file', dec('w.safetensors', 'l.npy', 'l.npy/x.gif'), /cannot write into l\.npy: it is a file, not a folder/],
    ['--out .png in an unwritable place (found before the decode)', dec('w.safetensors', 'l.npy', '/proc/x.png'), /cannot write \/proc\/x\.png: no such file or folder \(ENOENT\)/],
    ["--out DIR/ under /proc (Node's recursive mkdir loops there)", dec('w.safetensors', 'l.npy', '/proc/wan-vae-frames/'), /cannot write \/proc\/wan-vae-frames\/: no such file or folder \(ENOENT\)/],
    ['--out with an unknown extension', dec('w.safetensors', 'l.npy', 'v.avi'), /--out v\.avi: unknown extension '\.avi' \(written: \.gif/],
    [
      '--latent-size with a zero',
      ['decode', '--synthetic', '2.1', '--latent-size', '0x4x4', '--backend', 'cpu', '--out', 'o.npy'],
      /--latent-size 0x4x4: latent frames, height and width must each be at least 1/,
    ],
    [
      '--latent-size absurd',
      ['decode', '--synthetic', '2.1', '--latent-size', '99999x99999x99999', '--backend', 'cpu', '--out', 'o.npy'],
      /--latent-size 99999x99999x99999: \d+ latent positions, more than/,
    ],
    ['--latent-size not TxHxW', ['decode', '--synthetic', '2.1', '--latent-size', '4x4', '--out', 'o.npy'], /--synthetic needs --latent-size TxHxW/],
    ['plan --frames abc', ['plan', '--vae', '2.1', '--size', '64x64', '--frames', 'abc'], /--frames must be a whole number of video frames \(1 \+ 4k with the cache: 81, 121, \.\.\.\), got 'abc'/],
    ['plan --frames -1', ['plan', '--vae', '2.1', '--size', '64x64', '--frames', '-1'], /--frames must be a whole number of video frames.*got '-1'/],
    ['plan --frames 6 (not 1 + 4k)', ['plan', '--vae', '2.1', '--size', '64x64', '--frames', '6'], /--frames 6: with the cache a video has 1 \+ 4k frames/],
    ['plan --size 0x0', ['plan', '--vae', '2.1', '--size', '0x0'], /--size 0x0: Wan2\.1 needs positive multiples of 8/],
  ];
  it.each(cases)('%s', async (_, argv, re) => {
    const before = readdirSync(d).sort();
    const r = await run(argv);
    expect(r.err, r.err.join('\n')).toHaveLength(1);
    expect(r.err[0]).toMatch(/^wan-vae: bad-input: /);
    expect(r.err[0]).toMatch(re);
    expect(r.code).toBe(2);
    expect(readdirSync(d).sort()).toEqual(before); // no output, no temporary file
  });

  it('the inputs above are otherwise decodable (the errors come from the flaw, not the setup)', async () => {
    const r = await run(dec('w.safetensors', 'l.npy', 'ok.npy'));
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(existsSync(join(d, 'ok.npy'))).toBe(true);
    expect(readFileSync(join(d, 'ok.npy')).length).toBeGreaterThan(3 * 5 * 32 * 32 * 4);
  });
});
