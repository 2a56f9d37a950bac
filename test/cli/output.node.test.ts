// The CLI's output writers (src/node/output/): PNG bytes decode back to the frames, the contact sheet's
// layout, the GIF's block structure, a folder of frames, ffmpeg through a fake ffmpeg that records its
// arguments and input, the message when ffmpeg is missing, progress lines on a fake clock; and the CLI
// end to end on WebGPU (`--out x.png` of the generated dim-16 model's 9 frames); outputs streamed
// frame by frame during the decode (DIR/, .npy, ffmpeg) on a dim-4 generated model's 9 frames of 32x32.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { contactSheet, frameRgb, frameRgba, type Video } from '../../src/node/output/frames';
import { crc32, encodePng } from '../../src/node/output/png';
import { encodeGif } from '../../src/node/output/gif';
import { openOutput, resolveOutput, writeOutput } from '../../src/node/output/write';
import { Progress } from '../../src/node/output/progress';
import { main } from '../../src/node/cli';
import { npyHeader, parseNpy, writeNpy } from '../../src/model/npy';
import { WanVaeDecoder, type DecodeOptions } from '../../src/decoder';
import { writeSafetensors } from '../../src/model/safetensors';
import { syntheticLatents, syntheticWeights } from '../../src/model/synthetic';
import { needGpu, notOnThisAdapter } from '../helpers/need';
import { decodeGif } from './gif-decode';

/** A [3, F, H, W] video whose values encode (channel, frame, y, x), in [-1, 1]. */
function video(frames: number, height: number, width: number): Video {
  const v = new Float32Array(3 * frames * height * width);
  for (let c = 0; c < 3; c++)
    for (let f = 0; f < frames; f++) for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) v[((c * frames + f) * height + y) * width + x] = ((c * 7 + f * 13 + y * 5 + x * 3) % 29) / 14 - 1;
  return { video: v, frames, height, width };
}

/** Minimal PNG reader for what encodePng writes (RGBA8, filter 0): checks the chunk CRCs. */
function readPng(b: Uint8Array): { width: number; height: number; rgba: Uint8Array } {
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 8,
    width = 0,
    height = 0;
  const idat: Uint8Array[] = [];
  while (o < b.length) {
    const len = dv.getUint32(o),
      type = String.fromCharCode(...b.subarray(o + 4, o + 8));
    expect((crc32(b.subarray(o + 4, o + 8 + len)) ^ 0xffffffff) >>> 0, `${type} CRC`).toBe(dv.getUint32(o + 8 + len));
    if (type === 'IHDR') [width, height] = [dv.getUint32(o + 8), dv.getUint32(o + 12)];
    if (type === 'IDAT') idat.push(b.subarray(o + 8, o + 8 + len));
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    rgba.set(raw.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)), y * width * 4);
  }
  return { width, height, rgba };
}

/** The GIF's logical size, image count and whether it loops (walks the block structure). */
function gifBlocks(b: Uint8Array): { width: number; height: number; images: number; loops: boolean; delays: number[] } {
  expect(String.fromCharCode(...b.subarray(0, 6))).toBe('GIF89a');
  const width = b[6]! | (b[7]! << 8),
    height = b[8]! | (b[9]! << 8);
  let o = 13 + (b[10]! & 0x80 ? 3 * 2 ** ((b[10]! & 7) + 1) : 0);
  let images = 0,
    loops = false;
  const delays: number[] = [];
  const skipSub = () => {
    while (b[o]) o += b[o]! + 1;
    o++;
  };
  for (;;) {
    const k = b[o++];
    if (k === 0x3b) break;
    if (k === 0x21) {
      const label = b[o++];
      if (label === 0xff && String.fromCharCode(...b.subarray(o + 1, o + 9)) === 'NETSCAPE') loops = true;
      if (label === 0xf9) delays.push(b[o + 2]! | (b[o + 3]! << 8));
      skipSub();
    } else if (k === 0x2c) {
      const flags = b[o + 8]!;
      o += 9 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0) + 1; // descriptor, local table, LZW code size
      skipSub();
      images++;
    } else throw new Error(`GIF: unexpected block 0x${k?.toString(16)} at ${o - 1}`);
  }
  return { width, height, images, loops, delays };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'wan-vae-out-'));

describe('output writers', () => {
  const v = video(9, 6, 10);

  it('frameRgba maps [-1, 1] to round((v/2 + 1/2)·255), opaque', () => {
    const f = frameRgba(v, 3);
    const n = 6 * 10;
    for (const i of [0, 17, n - 1]) for (let c = 0; c < 3; c++) expect(f[4 * i + c]).toBe(Math.round((v.video[(c * 9 + 3) * n + i]! * 0.5 + 0.5) * 255));
    expect(f[4 * 17 + 3]).toBe(255);
  });

  it('PNG round-trips a frame exactly', () => {
    const p = readPng(encodePng(frameRgba(v, 4), 10, 6));
    expect([p.width, p.height]).toEqual([10, 6]);
    expect(Buffer.from(p.rgba).equals(Buffer.from(frameRgba(v, 4)))).toBe(true);
  });

  it('contact sheet: 9 frames in a 3x3 grid with 4 px gaps, each cell the frame; 81 frames show 16', () => {
    const s = contactSheet(v);
    expect([s.width, s.height, s.cols, s.frames.length]).toEqual([3 * 10 + 8, 3 * 6 + 8, 3, 9]);
    const f5 = frameRgba(v, 5),
      x0 = 2 * 14,
      y0 = 1 * 10; // frame 5: row 1, column 2
    for (let y = 0; y < 6; y++)
      expect(Buffer.from(s.rgba.subarray(((y0 + y) * s.width + x0) * 4, ((y0 + y) * s.width + x0 + 10) * 4)).equals(Buffer.from(f5.subarray(y * 40, (y + 1) * 40)))).toBe(true);
    const big = contactSheet(video(81, 2, 2));
    expect(big.frames).toEqual([0, 5, 11, 16, 21, 27, 32, 37, 43, 48, 53, 59, 64, 69, 75, 80]);
    expect(big.cols).toBe(4);
  });

  it('GIF: one image per frame, the delay of 16 fps (6 cs), looping', () => {
    const g = gifBlocks(encodeGif(v, 16));
    expect(g).toMatchObject({ width: 10, height: 6, images: 9, loops: true });
    expect(new Set(g.delays)).toEqual(new Set([6]));
  });

  it('writeOutput: .png of one frame is the frame; DIR/ holds one PNG per frame; .npy its header', async () => {
    const d = tmp();
    const one = video(1, 6, 10);
    await writeOutput(resolveOutput(join(d, 'one.png')), one, { fps: 16 });
    expect(Buffer.from(readPng(readFileSync(join(d, 'one.png'))).rgba).equals(Buffer.from(frameRgba(one, 0)))).toBe(true);
    const t = resolveOutput(join(d, 'frames') + '/');
    expect(t.kind).toBe('frames');
    const ticks: number[] = [];
    const r = await writeOutput(t, v, { fps: 16, onFrame: (n) => ticks.push(n) });
    expect(r.files).toBe(9);
    expect(readdirSync(join(d, 'frames')).sort()).toEqual(Array.from({ length: 9 }, (_, i) => `frame_000${i}.png`));
    expect(Buffer.from(readPng(readFileSync(join(d, 'frames', 'frame_0007.png'))).rgba).equals(Buffer.from(frameRgba(v, 7)))).toBe(true);
    expect(ticks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await writeOutput(resolveOutput(join(d, 'v.npy')), v, { fps: 16 });
    expect(readFileSync(join(d, 'v.npy')).subarray(0, 80).toString('latin1')).toContain("'shape': (3, 9, 6, 10)");
    // the .npy is written as header + the video's bytes in slices (never joined): a dropped or reordered slice fails here
    const back = parseNpy(new Uint8Array(readFileSync(join(d, 'v.npy'))));
    expect(back.shape).toEqual([3, 9, 6, 10]);
    expect(Buffer.from(back.data.buffer, back.data.byteOffset, back.data.byteLength).equals(Buffer.from(v.video.buffer, v.video.byteOffset, v.video.byteLength))).toBe(true);
    expect(readdirSync(d).filter((n) => n.includes('partial'))).toEqual([]);
  });

  it('names: unknown extension and missing ffmpeg are one-line errors before any decode', () => {
    expect(() => resolveOutput('x.avi')).toThrow(/--out x\.avi: unknown extension '\.avi' \(written: \.gif/);
    expect(() => resolveOutput('x.mp4', { PATH: '/nonexistent' })).toThrow(/writing \.mp4 needs ffmpeg, which is not on PATH: install it \(Debian\/Ubuntu: apt-get install ffmpeg/);
    expect(() => resolveOutput('x.webm', { WAN_VAE_FFMPEG: '/nonexistent/ffmpeg' })).toThrow(/WAN_VAE_FFMPEG=\/nonexistent\/ffmpeg is not an executable file/);
  });

  it('.mp4 / .webm / .webp: raw RGBA frames piped to the ffmpeg on PATH (a fake that records them)', async () => {
    const d = tmp();
    const bin = join(d, 'bin');
    const log = join(d, 'ffmpeg.log');
    // the fake: its arguments one per line, then the byte count of stdin; writes the last argument
    writeFileSync(join(d, 'fake'), `#!/bin/sh\nfor a in "$@"; do echo "$a"; done > ${log}\nwc -c | tr -d ' ' >> ${log}\neval last=\\\${$#}\necho fake > "$last"\n`);
    mkdirSync(bin);
    renameSync(join(d, 'fake'), join(bin, 'ffmpeg'));
    chmodSync(join(bin, 'ffmpeg'), 0o755);
    for (const [ext, codec] of [
      ['mp4', 'libx264'],
      ['webm', 'libvpx-vp9'],
      ['webp', 'libwebp_anim'],
    ] as const) {
      const t = resolveOutput(join(d, `v.${ext}`), { PATH: bin });
      expect(t).toMatchObject({ kind: 'ffmpeg', format: ext, ffmpeg: join(bin, 'ffmpeg') });
      await writeOutput(t, v, { fps: 12 });
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      expect(lines.slice(0, 15)).toEqual(['-hide_banner', '-loglevel', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', '10x6', '-r', '12', '-i', 'pipe:0', '-c:v']);
      expect(lines[15]).toBe(codec);
      expect(Number(lines.at(-1))).toBe(9 * 6 * 10 * 4);
      expect(readFileSync(join(d, `v.${ext}`), 'utf8')).toBe('fake\n');
    }
    writeFileSync(join(bin, 'ffmpeg'), '#!/bin/sh\ncat > /dev/null\necho "Unknown encoder libx264" >&2\nexit 1\n');
    await expect(writeOutput(resolveOutput(join(d, 'bad.mp4'), { PATH: bin }), v, { fps: 16 })).rejects.toThrow(/ffmpeg failed writing .*bad\.mp4 \(exit code 1\): Unknown encoder libx264/);
    expect(existsSync(join(d, 'bad.mp4'))).toBe(false);
  });
});

describe('progress', () => {
  it('phases, frames, and an ETA from the time per chunk after the first', () => {
    let t = 0;
    const out: string[] = [];
    const p = new Progress({ write: (s) => out.push(s), tty: true, columns: 200 }, 9, 4, () => t);
    expect(out.at(-1)).toBe('\r\x1b[2K[compile] device, weights, pipelines ... 0.0 s');
    t = 10;
    p.frames(1); // chunk 0 (carries the compile)
    expect(out.at(-1)).toContain('[decode] frame 1/9 (11%) 10.0 s, ETA after the next chunk');
    t = 14;
    for (let f = 2; f <= 5; f++) p.frames(f); // chunk 1: 4 s
    expect(p.line('decode', 5)).toBe('[decode] frame 5/9 (56%) 14.0 s, ETA 4.0 s');
    t = 15;
    expect(p.eta()).toBe(3);
    p.writing(0, 9);
    expect(out.at(-1)).toContain('[write] frame 0/9');
    p.done();
    expect(out.at(-1)).toBe('\n');
  });
});

describe('wan-vae decode (WebGPU, the generated dim-16 model and latent)', () => {
  beforeEach(async (ctx) => void (await needGpu(ctx))); // the CLI's default backend needs the same adapter
  it('--out x.png writes a contact sheet of the 9 frames; a bad --fps fails before decoding', async () => {
    const d = tmp();
    expect(await main(['decode', '--sample', 'generated', '--out', join(d, 'sheet.png'), '--progress', 'off'])).toBe(0);
    const p = readPng(readFileSync(join(d, 'sheet.png')));
    expect([p.width, p.height]).toEqual([3 * 64 + 8, 3 * 64 + 8]);
    expect(await main(['decode', '--sample', 'generated', '--out', join(d, 'v.gif'), '--fps', '0'])).toBe(2);
    expect(existsSync(join(d, 'v.gif'))).toBe(false);
  });
});

/** A fake ffmpeg in `d`/bin that writes its pid to `d`/ffmpeg.pid, copies its stdin to `d`/stdin.raw and writes 'fake' to its last argument. */
function fakeFfmpeg(d: string): string {
  mkdirSync(join(d, 'bin'), { recursive: true });
  const bin = join(d, 'bin', 'ffmpeg');
  writeFileSync(bin, `#!/bin/sh\necho $$ > ${join(d, 'ffmpeg.pid')}\ncat > ${join(d, 'stdin.raw')}\neval last=\\\${$#}\necho fake > "$last"\n`);
  chmodSync(bin, 0o755);
  return bin;
}

/** What a correct [3, F, H, W] .npy of `v` holds: the header, then the video's bytes as they are. */
function npyBytes(v: Video): Buffer {
  return Buffer.concat([npyHeader([3, v.frames, v.height, v.width]), new Uint8Array(v.video.buffer, v.video.byteOffset, v.video.byteLength)]);
}

describe('streamed outputs (written frame by frame as the decoder delivers them)', () => {
  const v = video(9, 6, 10);

  // The decoder delivers in index order today; the writers must not depend on it. Frames given in reverse:
  // a writer that numbered PNGs or .npy slots by arrival, or piped to ffmpeg as frames arrive, fails here.
  it('openOutput: frames given out of order land by index (DIR/, .npy, ffmpeg stdin in order)', async () => {
    const d = tmp();
    const order = [8, 3, 0, 1, 2, 7, 4, 6, 5];
    const feed = async (path: string, env?: NodeJS.ProcessEnv) => {
      const s = openOutput(resolveOutput(path, env), v, { fps: 16 });
      for (const f of order) s.frame(f, frameRgb(v, f));
      return s.finish();
    };
    await feed(join(d, 'frames') + '/');
    for (let f = 0; f < 9; f++) expect(readFileSync(join(d, 'frames', `frame_000${f}.png`)).equals(Buffer.from(encodePng(frameRgba(v, f), 10, 6)))).toBe(true);
    await feed(join(d, 'v.npy'));
    expect(readFileSync(join(d, 'v.npy')).equals(npyBytes(v))).toBe(true);
    await feed(join(d, 'v.mp4'), { WAN_VAE_FFMPEG: fakeFfmpeg(d) });
    expect(readFileSync(join(d, 'stdin.raw')).equals(Buffer.concat(Array.from({ length: 9 }, (_, f) => frameRgba(v, f))))).toBe(true);
    expect(readFileSync(join(d, 'v.mp4'), 'utf8')).toBe('fake\n');
    expect(readdirSync(d).filter((n) => n.includes('partial'))).toEqual([]);
    // a frame missing at the end: an error naming the count, and nothing under the name
    const s = openOutput(resolveOutput(join(d, 'short.npy')), v, { fps: 16 });
    for (let f = 0; f < 8; f++) s.frame(f, frameRgb(v, f));
    await expect(s.finish()).rejects.toThrow(/cannot write .*short\.npy: 8 of 9 frames arrived/);
    const twice = openOutput(resolveOutput(join(d, 'twice.npy')), v, { fps: 16 });
    twice.frame(0, frameRgb(v, 0));
    expect(() => twice.frame(0, frameRgb(v, 0))).toThrow(/cannot write .*twice\.npy: frame 0 arrived twice/);
    await twice.abort();
    expect(readdirSync(d).filter((n) => n.includes('partial') || n.startsWith('short') || n.startsWith('twice'))).toEqual([]);
  });
});

// A sheet writer that kept the wrong frames (by arrival instead of index, or the first 16 instead of the
// evenly spaced ones) makes a different image than the sheet of the whole video.
it('.png contact sheet streamed: keeps only the sheet frames, equals the sheet of the whole video (frames out of order)', async () => {
  const d = tmp();
  for (const w of [video(9, 6, 10), video(20, 4, 6)]) {
    const s = openOutput(resolveOutput(join(d, `s${w.frames}.png`)), w, { fps: 16 });
    for (let f = w.frames - 1; f >= 0; f--) s.frame(f, frameRgb(w, f));
    const r = await s.finish();
    const sheet = contactSheet(w);
    expect(readFileSync(join(d, `s${w.frames}.png`)).equals(Buffer.from(encodePng(sheet.rgba, sheet.width, sheet.height)))).toBe(true);
    expect(r.description).toContain(`${sheet.frames.length} of ${w.frames} frames (${sheet.frames.join(', ')})`);
  }
});

// The GIF written from frames streamed out of order (RGBA spilled to a file, the palette frames kept) must be
// the GIF of the whole video byte for byte (a spill at the wrong offset, a palette from other frames, or a
// frame missing changes bytes), and it must decode (test/cli/gif-decode.ts, not gifenc) to every frame's
// colours exactly (this video has 29 colours, under the palette's 256).
it('.gif streamed: frames out of order spill to disk; the GIF equals that of the whole video and decodes to its frames', async () => {
  const d = tmp();
  const w = video(12, 10, 14);
  const s = openOutput(resolveOutput(join(d, 'v.gif')), w, { fps: 16 });
  for (const f of [11, 0, 5, 3, 1, 2, 4, 10, 6, 9, 7, 8]) await s.frame(f, frameRgb(w, f));
  expect(readdirSync(d).filter((n) => n.endsWith('.partial.rgba'))).toHaveLength(1); // the spill file, while decoding
  const r = await s.finish();
  expect(r.description).toBe('animated GIF, 12 frames at 16 fps, 14x10');
  const bytes = readFileSync(join(d, 'v.gif'));
  expect(bytes.equals(Buffer.from(encodeGif(w, 16)))).toBe(true);
  expect(readdirSync(d)).toEqual(['v.gif']); // spill and temporary file gone
  const g = decodeGif(new Uint8Array(bytes));
  expect([g.width, g.height, g.images.length]).toEqual([14, 10, 12]);
  g.images.forEach((im, f) => {
    const want = frameRgba(w, f);
    const got = new Uint8Array(want.length);
    im.indices.forEach((k, i) => got.set([...im.palette[k]!, 255], 4 * i));
    expect(Buffer.from(got).equals(Buffer.from(want)), `frame ${f}`).toBe(true);
    expect(im.delay).toBe(6);
  });
});

// Backpressure: the CLI's onFrame returns frame()'s Promise, so it must settle only when the frame is written.
// ffmpeg: a fake that reads nothing until a file appears; frames of 128 KiB (more than a pipe holds) cannot
// all be taken, so the last stays pending until then (a writer that settled at once, without waiting for
// stdin to drain, fails). DIR/: a frame's Promise settles after its PNG is in place under its name.
it('frame() settles when the frame is written: ffmpeg stdin drained, the PNG renamed into place', async () => {
  const d = tmp();
  const big = video(4, 128, 256);
  const go = join(d, 'go');
  const bin = join(d, 'ffmpeg');
  writeFileSync(bin, `#!/bin/sh\nwhile [ ! -f ${go} ]; do sleep 0.05; done\ncat > ${join(d, 'stdin.raw')}\neval last=\\\${$#}\necho fake > "$last"\n`);
  chmodSync(bin, 0o755);
  const s = openOutput(resolveOutput(join(d, 'v.mp4'), { WAN_VAE_FFMPEG: bin }), big, { fps: 16 });
  const settled: boolean[] = [false, false, false, false];
  const taken = [0, 1, 2, 3].map((f) => s.frame(f, frameRgb(big, f)).then(() => void (settled[f] = true)));
  await new Promise((r) => setTimeout(r, 300)); // a wait, not a timed assertion: ffmpeg reads nothing before 'go'
  expect(settled[3]).toBe(false);
  writeFileSync(go, '');
  await Promise.all(taken);
  await s.finish();
  expect(readFileSync(join(d, 'stdin.raw')).equals(Buffer.concat([0, 1, 2, 3].map((f) => frameRgba(big, f))))).toBe(true);
  const dir = openOutput(resolveOutput(join(d, 'frames') + '/'), big, { fps: 16 });
  await Promise.all([2, 0, 3, 1].map((f) => dir.frame(f, frameRgb(big, f)).then(() => expect(existsSync(join(d, 'frames', `frame_000${f}.png`)), `frame ${f}`).toBe(true))));
  await dir.finish();
});

describe('wan-vae decode streams DIR/, .npy and ffmpeg outputs (CPU reference, generated dim-4 weights, 9 frames of 32x32)', () => {
  let d = '';
  let reference: Video;
  const base = () => ['decode', '--weights', join(d, 'w.safetensors'), '--latents', join(d, 'l.npy'), '--latent-stats', 'none', '--backend', 'cpu', '--progress', 'off'];
  beforeAll(async () => {
    d = tmp();
    const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 16, seed: 9 });
    const shape = [16, 3, 4, 4] as [number, number, number, number];
    const latents = { data: syntheticLatents(...shape), shape };
    writeFileSync(join(d, 'w.safetensors'), writeSafetensors(Object.fromEntries([...weights.map].map(([k, t]) => [k, { shape: t.shape, data: t.data }]))));
    writeFileSync(join(d, 'l.npy'), writeNpy(shape, latents.data));
    const dec = new WanVaeDecoder(weights);
    reference = await dec.decode(latents, { backend: 'cpu', latentStats: 'none' }); // collected
    dec.dispose();
  });
  afterEach(() => vi.restoreAllMocks());

  /** main's --json line (console.log captured). */
  async function run(args: string[]): Promise<{ code: number; json: Record<string, unknown> | null }> {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: unknown) => void lines.push(String(s)));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const code = await main(args);
    vi.mocked(console.log).mockRestore();
    vi.mocked(console.error).mockRestore();
    return { code, json: lines.length ? (JSON.parse(lines.at(-1)!) as Record<string, unknown>) : null };
  }

  // The streamed files are compared with bytes made from the collected decode (not through the writers):
  // a plane at the wrong .npy offset ([F, 3, H, W] instead of [3, F, H, W]), a frame written twice or not at
  // all, or a decode that streamed but dropped/duplicated frames fails the byte equality.
  it('DIR/ and .npy written while decoding (collect: false) equal the collected decode byte for byte; --json streamed: true', async () => {
    const collects: boolean[] = [];
    // backpressure: the CLI's onFrame returns the writer's Promise (a CLI that dropped it would let a slow disk queue frames)
    const returned: string[] = [];
    const orig = WanVaeDecoder.prototype.decode;
    vi.spyOn(WanVaeDecoder.prototype, 'decode').mockImplementation(function (this: WanVaeDecoder, l, o?: DecodeOptions) {
      collects.push(o?.collect !== false);
      const inner = o?.onFrame;
      return orig.call(this, l, {
        ...o,
        onFrame: (f) => {
          const r = inner?.(f);
          returned.push(typeof (r as PromiseLike<void> | undefined)?.then);
          return r;
        },
      });
    });
    const dir = await run([...base(), '--out', join(d, 'frames') + '/', '--json']);
    expect(dir.code).toBe(0);
    expect(dir.json).toMatchObject({ streamed: true, frames: 9, height: 32, width: 32 });
    expect(readdirSync(join(d, 'frames'))).toHaveLength(9);
    for (let f = 0; f < 9; f++) expect(readFileSync(join(d, 'frames', `frame_000${f}.png`)).equals(Buffer.from(encodePng(frameRgba(reference, f), 32, 32))), `frame ${f}`).toBe(true);
    const npy = await run([...base(), '--out', join(d, 'v.npy'), '--json']);
    expect(npy.code).toBe(0);
    expect(npy.json).toMatchObject({ streamed: true, output: 'float32 [3, 9, 32, 32] in [-1, 1]' });
    expect(readFileSync(join(d, 'v.npy')).equals(npyBytes(reference))).toBe(true);
    const gif = await run([...base(), '--out', join(d, 'v.gif'), '--json']);
    expect(gif.json).toMatchObject({ streamed: true, output: 'animated GIF, 9 frames at 16 fps, 32x32' });
    expect(readFileSync(join(d, 'v.gif')).equals(Buffer.from(encodeGif(reference, 16)))).toBe(true);
    expect(collects).toEqual([false, false, false]); // the CLI did not keep the video
    expect(returned).toEqual(Array(27).fill('function'));
    expect(readdirSync(d).filter((n) => n.includes('partial'))).toEqual([]);
  });

  // Each run fails or is cancelled after 3 of 9 frames were written: a writer that renamed early, left its
  // temporary file, kept the frames already written, or (ffmpeg) did not kill the encoder fails here.
  it('a failed or cancelled (Ctrl-C) decode leaves nothing under the requested name and no temporary file', async () => {
    const fake = fakeFfmpeg(d);
    const orig = WanVaeDecoder.prototype.decode;
    let mode: 'fail' | 'cancel' = 'fail';
    vi.spyOn(WanVaeDecoder.prototype, 'decode').mockImplementation(function (this: WanVaeDecoder, l, o?: DecodeOptions) {
      let k = 0;
      return orig.call(this, l, {
        ...o,
        onFrame: (f) => {
          o?.onFrame?.(f);
          if (++k !== 3) return;
          if (mode === 'fail') throw new Error('injected failure after 3 frames');
          (process.listeners('SIGINT').at(-1) as () => void)(); // the CLI's Ctrl-C handler (registered last)
        },
      });
    });
    vi.stubEnv('WAN_VAE_FFMPEG', fake);
    for (const m of ['fail', 'cancel'] as const)
      for (const name of ['frames/', 'v.npy', 'v.mp4', 'v.gif']) {
        mode = m;
        const out = join(d, `${m}-${name}`);
        const r = await run([...base(), '--out', out]);
        expect(r.code, `${m} ${name}`).toBe(m === 'fail' ? 2 : 130);
        expect(existsSync(out), `${m} ${name}: ${out} exists`).toBe(false);
        expect(
          readdirSync(d).filter((n) => n.includes('partial')),
          `${m} ${name}`,
        ).toEqual([]);
        // ffmpeg killed, not left waiting on a stdin that never closes
        if (name === 'v.mp4') expect(() => process.kill(Number(readFileSync(join(d, 'ffmpeg.pid'), 'utf8')), 0), `${m}: the fake ffmpeg still runs`).toThrow(/ESRCH/);
      }
    vi.unstubAllEnvs();
  });

  // Only where a real ffmpeg is installed (the fake above checks the bytes piped): the streamed .mp4 is a
  // real MP4 (an 'ftyp' box) of 9 frames as ffprobe counts them when it is there.
  it('a real ffmpeg writes the streamed .mp4', async (ctx) => {
    if (spawnSync('ffmpeg', ['-version']).status !== 0) notOnThisAdapter(ctx, 'ffmpeg is not on PATH on this machine (the fake ffmpeg tests above still check the piped frames)');
    const r = await run([...base(), '--out', join(d, 'real.mp4'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ streamed: true });
    expect(readFileSync(join(d, 'real.mp4')).subarray(4, 8).toString('latin1')).toBe('ftyp');
    const probe = spawnSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', join(d, 'real.mp4')], {
      encoding: 'utf8',
    });
    if (probe.status === 0) expect(Number(probe.stdout.trim())).toBe(9);
  });
});
