// Frame assembly on the CPU: output regions read back from the GPU (whole frames, tile cores, or blended
// tile regions) are placed into full frames; a frame is emitted once every region that covers it is in.
import type { Region } from '../plan/graph';

export interface Frame {
  /** index of the frame in the video */
  index: number;
  /** [3, H, W] clamped to [-1, 1] */
  rgb: Float32Array;
  /** H·W·4 RGBA8, when asked for */
  rgba?: Uint8ClampedArray;
}

interface Pending {
  rgb: Float32Array;
  rgba: Uint8ClampedArray | null;
  /** blend weights per pixel (null when regions never overlap) */
  weight: Float32Array | null;
}

/** Linear ramp weight at distance d (0-based pixel index) into a ramp of width r (0: no ramp). */
function ramp(d: number, r: number): number {
  return r ? Math.min(1, (d + 0.5) / r) : 1;
}

export class FrameAssembler {
  private readonly pending = new Map<number, Pending>();

  constructor(
    readonly height: number,
    readonly width: number,
    readonly rgba: boolean,
    readonly blend: boolean,
  ) {}

  private frame(index: number): Pending {
    let p = this.pending.get(index);
    if (!p) {
      const n = this.height * this.width;
      p = { rgb: new Float32Array(3 * n), rgba: this.rgba ? new Uint8ClampedArray(4 * n) : null, weight: this.blend ? new Float32Array(n) : null };
      this.pending.set(index, p);
    }
    return p;
  }

  /** Place a region: rgb [3, oh, ow] floats and rgba [oh·ow] packed words. */
  place(index: number, r: Region, rgb: Float32Array, rgba: Uint32Array | null): void {
    const f = this.frame(index);
    const H = this.height,
      W = this.width,
      n = H * W;
    for (let y = 0; y < r.oh; y++) {
      const wy = f.weight ? ramp(y, r.ramp.top) * ramp(r.oh - 1 - y, r.ramp.bottom) : 1;
      for (let x = 0; x < r.ow; x++) {
        const d = (r.dy + y) * W + r.dx + x;
        const s = y * r.ow + x;
        if (f.weight) {
          const wgt = wy * ramp(x, r.ramp.left) * ramp(r.ow - 1 - x, r.ramp.right);
          f.weight[d]! += wgt;
          for (let c = 0; c < 3; c++) f.rgb[c * n + d]! += wgt * rgb[c * r.oh * r.ow + s]!;
        } else {
          for (let c = 0; c < 3; c++) f.rgb[c * n + d] = rgb[c * r.oh * r.ow + s]!;
          if (f.rgba && rgba) {
            const v = rgba[s]!;
            f.rgba[4 * d] = v & 255;
            f.rgba[4 * d + 1] = (v >>> 8) & 255;
            f.rgba[4 * d + 2] = (v >>> 16) & 255;
            f.rgba[4 * d + 3] = v >>> 24;
          }
        }
      }
    }
  }

  /** The finished frame `index` (normalised by the blend weights), removed from the pending set. */
  take(index: number): Frame {
    const f = this.frame(index);
    this.pending.delete(index);
    const n = this.height * this.width;
    if (f.weight) {
      for (let i = 0; i < n; i++) {
        const inv = 1 / f.weight[i]!;
        for (let c = 0; c < 3; c++) f.rgb[c * n + i]! *= inv;
      }
      if (f.rgba)
        for (let i = 0; i < n; i++) {
          for (let c = 0; c < 3; c++) f.rgba[4 * i + c] = Math.round((f.rgb[c * n + i]! * 0.5 + 0.5) * 255);
          f.rgba[4 * i + 3] = 255;
        }
    }
    return f.rgba ? { index, rgb: f.rgb, rgba: f.rgba } : { index, rgb: f.rgb };
  }
}
