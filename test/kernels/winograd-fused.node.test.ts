// The fused Winograd conv (src/kernels/winograd-fused.ts: winograd-fused, the input transform in the GEMM's
// staging, then winograd-out per band of tiles) against the CPU oracle of one causal conv step
// (test/helpers/conv-case.ts: random frames at odd offsets, NaN in the cache frames before tap0, NORM=1 cases
// normalised by the oracle), F(2x2,3x3) and F(4x4,3x3), kt 3 (tap0 0 and 1) and the upsample Conv2d (kt 1,
// UP=1), odd H/W (cropped tiles), both residuals, bands smaller than the frame, blocks where cout, the band's
// tiles and kc are not multiples of the block (partial channel blocks, tile blocks and k steps).
// Why a wrong implementation fails: a wrong row of B^T, patch row or column, channel or tap0 offset in k, a V
// item staged at the wrong tile or position, or a U row of the wrong position moves outputs by O(0.1) (weights
// ~1/sqrt(fan-in), inputs ~N(0,1)); a read of a skipped cache frame brings NaN; the scratch starts as NaN, so a
// band whose M is not written wholly fails. f32 tolerance as the non-fused test: |err| <= 1e-4 + 1e-4|ref|.
import { beforeEach, describe, expect, it } from 'vitest';
import { winogradFused, winoFusedOverrides, winoFusedShape, winoFusedShapeError, type WinoFusedShape } from '../../src/kernels/winograd-fused';
import { winogradOut } from '../../src/kernels/winograd';
import { packWinogradWeight, winoPositions, type WinoR } from '../../src/kernels/winograd-transforms';
import { expectClose } from '../helpers/compare';
import { convCase, type ConvCase } from '../helpers/conv-case';
import { getTestDevice, withDevice } from '../helpers/gpu';
import { needDevice } from '../helpers/need';

const gpu = await getTestDevice();

interface Case extends ConvCase {
  r: WinoR;
  band: number;
  /** 'tiny': 8 channels x 8 tiles, BK 3 (partial blocks and steps everywhere); 'decoder': winoFusedShape's for cout */
  block: 'tiny' | 'decoder';
}

const TINY: WinoFusedShape = { wgN: 2, wgM: 2, tm4: 1, tn4: 1, bk: 3 };

const cases: Case[] = [
  { r: 2, band: 4, block: 'tiny', cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  { r: 2, band: 8, block: 'tiny', cin: 6, cout: 9, h: 3, w: 3, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 0 },
  { r: 2, band: 12, block: 'tiny', cin: 5, cout: 6, h: 6, w: 10, kt: 1, ks: 3, up: 1, res: 0, tap0: 0 },
  { r: 4, band: 3, block: 'tiny', cin: 5, cout: 7, h: 5, w: 7, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  { r: 4, band: 8, block: 'tiny', cin: 4, cout: 9, h: 9, w: 13, kt: 3, ks: 3, up: 0, res: 1, tap0: 0, norm: 1 },
  { r: 4, band: 64, block: 'decoder', cin: 16, cout: 96, h: 11, w: 10, kt: 3, ks: 3, up: 0, res: 2, tap0: 1, norm: 1 },
  { r: 2, band: 16, block: 'decoder', cin: 8, cout: 96, h: 12, w: 10, kt: 1, ks: 3, up: 1, res: 1, tap0: 0 },
];

const name = (c: Case) =>
  `F(${c.r}x${c.r}) cin${c.cin} cout${c.cout} ${c.h}x${c.w} kt${c.kt} up${c.up} res${c.res} tap0=${c.tap0} band ${c.band} ${c.block}${c.norm !== undefined ? ` norm silu${c.norm}` : ''}`;

async function runCase(c: Case) {
  const { wt, bias, gamma, want, xData, cacheData, resData, yInit, params, outLen } = convCase(c, 'f32', { frames: 310, params: 17 });
  const lim = gpu!.device.limits;
  const shape = c.block === 'tiny' ? TINY : winoFusedShape(c.r, c.cout, lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupStorageSize)!;
  expect(winoFusedShapeError(c.r, shape, lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupStorageSize)).toBe(null);
  const tiles = Math.ceil(c.h / c.r) * Math.ceil(c.w / c.r);
  const sv = Math.ceil(c.band / 4) * 4;
  const got = await withDevice(async (s) => {
    const x = s.upload(xData, 'f32', 'x');
    const cache = c.kt === 3 ? s.upload(cacheData, 'f32', 'cache') : s.dummy();
    const g = c.norm !== undefined ? s.upload(gamma, 'f32', 'gamma') : s.dummy();
    const u = s.upload(packWinogradWeight(wt, c.r, c.cout, c.cin, c.kt), 'f32', 'U');
    const b = s.upload(bias, 'f32', 'b');
    const res = c.res === 1 ? s.upload(resData, 'f32', 'res') : s.dummy();
    const y = c.res === 2 ? s.upload(yInit, 'f32', 'y') : s.zeros(yInit.length, 4);
    // M only, at an offset (a kernel that ignored m_off fails); NaN where nothing is written
    const m_off = 8;
    const scratch = s.upload(new Float32Array(m_off + winoPositions(c.r) * c.cout * sv).fill(NaN), 'f32', 'scratch');
    const ov = winoFusedOverrides({ KT: c.kt, UP: c.up, NORM: c.norm === undefined ? 0 : 1, SILU: c.norm ?? 0 });
    let bands = 0;
    for (let t0 = 0; t0 < tiles; t0 += c.band, bands++) {
      const p = { ...params, t0, nt: Math.min(c.band, tiles - t0), m_off };
      await s.run(winogradFused(c.r, shape), p, ov, 'f32', [x, cache, g, scratch, u]);
      await s.run(winogradOut(c.r), p, { HAS_RES: c.res }, 'f32', [scratch, b, res, y]);
    }
    return { y: await s.read(y, 'f32', outLen, params.y_off), bands };
  });
  const r = expectClose(got.y, want, { atol: 1e-4, rtol: 1e-4, nmse: 1e-9, label: name(c) });
  console.info(`winograd-fused ${name(c)} ${JSON.stringify(shape)}: ${got.bands} bands, max|err| ${r.maxAbs.toExponential(2)} at ${r.maxAbsAt}, nmse ${r.nmse.toExponential(2)}`);
}

describe('winograd-fused (input transform in the GEMM staging) + winograd-out per band against the CPU conv', () => {
  beforeEach((ctx) => void needDevice(ctx, gpu));
  it.each(cases.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    await runCase(c);
  });
});

describe('winoFusedShape: the block under the adapter limits', () => {
  it('96-channel blocks for multiples of 96, within 256 invocations and 32 KiB; none larger than asked', () => {
    for (const r of [2, 4] as const)
      for (const [inv, smem] of [
        [256, 32768],
        [1024, 49152],
      ] as const) {
        const t = winoFusedShape(r, 96, inv, smem)!;
        expect(4 * t.wgM * t.tm4).toBe(96);
        expect(winoFusedShapeError(r, t, inv, smem)).toBe(null);
      }
    expect(4 * winoFusedShape(4, 128)!.wgM).toBe(64);
  });
});
