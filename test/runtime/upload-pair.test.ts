// UploadPair (src/runtime/exec/upload-pair.ts): the weight preparations' uploads through two mapped buffers in
// turn. The preparations' own tests (weights-prep, weights-pack, winograd-weights, winograd-u-call) check the
// prepared bytes through it; this checks the pair alone where they do not reach: many more chunks than buffers
// (a buffer reused before the GPU ran its copy would carry the wrong chunk), pieces of copy() at offsets into
// one destination, host memory refused (an oom the decode re-plans on), and misuse refused with a line.
import { describe, expect, it } from 'vitest';
import { DecoderError } from '../../src/gpu/errors';
import { UploadPair } from '../../src/runtime/exec/upload-pair';
import { getTestDevice, readBytes } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();
const usage = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

describe('UploadPair', () => {
  it('copy(): 1000 words in 16-word pieces land at their offset, every word in place', async (ctx) => {
    const { device } = needDevice(ctx, gpu);
    const src = Float32Array.from({ length: 1100 }, (_, i) => i * 0.5 - 7);
    const dst = device.createBuffer({ size: 4 * 1024, usage: usage() });
    const up = new UploadPair(device, 64, 'test');
    try {
      // words 50 .. 1049 of src into dst from byte 96 (word 24): 63 pieces, a short one last
      await up.copy(dst, 96, src, 50, 1000);
    } finally {
      up.destroy();
    }
    const got = new Float32Array((await readBytes(device, dst)).buffer);
    expect(Array.from(got.subarray(24, 1024))).toEqual(Array.from(src.subarray(50, 1050)));
    expect(Array.from(got.subarray(0, 24))).toEqual(new Array(24).fill(0)); // nothing written before the offset
    dst.destroy();
  });

  it('begin / end / submitted: 40 chunks through one staging buffer, each read by a copy in its own submission', async (ctx) => {
    // each chunk's words are copied on into an output buffer of its own by the same submission: a map that
    // handed out a buffer whose previous copy had not run yet, or a wrong buffer, would put another chunk there
    const { device } = needDevice(ctx, gpu);
    const n = 32;
    const staging = device.createBuffer({ size: n * 4, usage: usage() });
    const outs = Array.from({ length: 40 }, () => device.createBuffer({ size: n * 4, usage: usage() }));
    const up = new UploadPair(device, n * 4, 'test');
    try {
      for (const [c, out] of outs.entries()) {
        const words = await up.begin();
        for (let i = 0; i < n; i++) words[i] = c * 1000 + i;
        const enc = device.createCommandEncoder();
        up.end(enc, staging, 0, n * 4);
        enc.copyBufferToBuffer(staging, 0, out, 0, n * 4);
        device.queue.submit([enc.finish()]);
        up.submitted();
      }
    } finally {
      up.destroy();
    }
    for (const [c, out] of outs.entries()) {
      const got = new Float32Array((await readBytes(device, out)).buffer);
      expect(Array.from(got), `chunk ${c}`).toEqual(Array.from({ length: n }, (_, i) => c * 1000 + i));
      out.destroy();
    }
    staging.destroy();
  });

  it('host memory refused (mappedAtCreation throws RangeError): an oom DecoderError the decode re-plans on, the first buffer freed', () => {
    // a stand-in device: the second buffer cannot be had; no GPU needed
    const destroyed: string[] = [];
    let made = 0;
    const device = {
      createBuffer: (d: GPUBufferDescriptor) => {
        if (made++ === 1) throw new RangeError('Failed to allocate');
        return { label: d.label, destroy: () => destroyed.push(String(d.label)) } as unknown as GPUBuffer;
      },
    } as unknown as GPUDevice;
    let err: unknown;
    try {
      new UploadPair(device, 64 * 2 ** 20, 'weights-block');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DecoderError);
    expect((err as DecoderError).code).toBe('oom');
    expect((err as DecoderError).message).toBe('out of memory for the weight upload buffers (2 x 64.0 MiB, weights-block)');
    expect(destroyed).toEqual(['weights-block upload 0']);
  });

  it('refuses a size that is not a positive multiple of 4, and end() without begin()', (ctx) => {
    const { device } = needDevice(ctx, gpu);
    expect(() => new UploadPair(device, 6, 'test')).toThrow(/6 bytes \(a positive multiple of 4\)/);
    const up = new UploadPair(device, 16, 'test');
    expect(() => up.end(device.createCommandEncoder(), up as unknown as GPUBuffer, 0, 0)).toThrow(/end without begin/);
    up.destroy();
  });
});
