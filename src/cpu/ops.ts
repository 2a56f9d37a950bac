// Plain CPU reference of every decoder op (llm.c style): plain loops, f32 storage, f64 accumulation.
// Layout everywhere: a tensor is a Float32Array in row-major order with the shape given in the comment,
// batch dimension dropped. Video tensors are [C, T, H, W]; single frames are [C, H, W].
// These functions are the oracle for the WGSL kernels and for the whole-decoder CPU backend.

export interface Tensor {
  data: Float32Array;
  shape: number[];
}

export function tensor(shape: number[], data?: Float32Array): Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  if (data && data.length !== n) throw new Error(`tensor: ${data.length} values for shape [${shape}]`);
  return { data: data ?? new Float32Array(n), shape };
}

/**
 * CausalConv3d (vae.py CausalConv3d), one call with an optional cache of earlier input frames.
 * x: [Cin, T, H, W], cache: [Cin, nc, H, W] (nc = 0..2) or null, w: [Cout, Cin, kt, ks, ks], b: [Cout]
 * Sees [zeros(kt-1-nc), cache, x] in time (kt-1 front padding, 0 back), (ks-1)/2 zero pixels per side.
 * Returns [Cout, T, H, W]. Output frame t uses input frames t-2, t-1, t with taps dt = 0, 1, 2.
 */
export function causalConv3d(x: Tensor, cache: Tensor | null, w: Tensor, b: Tensor | null): Tensor {
  const [cin, T, H, W] = x.shape as [number, number, number, number];
  const [cout, wcin, kt, ks] = w.shape as [number, number, number, number];
  if (wcin !== cin) throw new Error(`causalConv3d: weight expects ${wcin} input channels, input has ${cin}`);
  const nc = cache ? cache.shape[1]! : 0;
  const pad = (ks - 1) >> 1;
  // frame f of the padded sequence: f < kt-1-nc -> zeros; then cache; then x
  const front = kt - 1 - nc;
  const frame = (f: number, c: number): Float32Array | null => {
    if (f < front) return null;
    if (f < kt - 1) return cache!.data.subarray((c * nc + (f - front)) * H * W, (c * nc + (f - front) + 1) * H * W);
    const tx = f - (kt - 1);
    return x.data.subarray((c * T + tx) * H * W, (c * T + tx + 1) * H * W);
  };
  const out = tensor([cout, T, H, W]);
  const acc = new Float64Array(H * W);
  for (let o = 0; o < cout; o++) {
    for (let t = 0; t < T; t++) {
      acc.fill(b ? b.data[o]! : 0);
      for (let c = 0; c < cin; c++) {
        for (let dt = 0; dt < kt; dt++) {
          const src = frame(t + dt, c);
          if (!src) continue;
          for (let dy = 0; dy < ks; dy++) {
            // output rows / columns whose tap falls inside the frame (the rest read zero padding)
            const y0 = Math.max(0, pad - dy),
              y1 = Math.min(H, H + pad - dy);
            for (let dx = 0; dx < ks; dx++) {
              const wv = w.data[(((o * cin + c) * kt + dt) * ks + dy) * ks + dx]!;
              const x0 = Math.max(0, pad - dx),
                x1 = Math.min(W, W + pad - dx);
              for (let y = y0; y < y1; y++) {
                const row = y * W,
                  srow = (y + dy - pad) * W + dx - pad;
                for (let xx = x0; xx < x1; xx++) acc[row + xx]! += wv * src[srow + xx]!;
              }
            }
          }
        }
      }
      const base = (o * T + t) * H * W;
      for (let i = 0; i < H * W; i++) out.data[base + i] = acc[i]!;
    }
  }
  return out;
}

/** Last `n` frames of x: [C, T, H, W] -> [C, n, H, W] (n <= T). */
export function lastFrames(x: Tensor, n: number): Tensor {
  const [C, T, H, W] = x.shape as [number, number, number, number];
  const out = tensor([C, n, H, W]);
  for (let c = 0; c < C; c++) out.data.set(x.data.subarray((c * T + T - n) * H * W, (c * T + T) * H * W), c * n * H * W);
  return out;
}

/** Concatenate along T: a [C, Ta, H, W], b [C, Tb, H, W] -> [C, Ta+Tb, H, W]. */
export function concatT(a: Tensor, b: Tensor): Tensor {
  const [C, Ta, H, W] = a.shape as [number, number, number, number];
  const Tb = b.shape[1]!;
  const out = tensor([C, Ta + Tb, H, W]);
  const f = H * W;
  for (let c = 0; c < C; c++) {
    out.data.set(a.data.subarray(c * Ta * f, (c + 1) * Ta * f), c * (Ta + Tb) * f);
    out.data.set(b.data.subarray(c * Tb * f, (c + 1) * Tb * f), (c * (Ta + Tb) + Ta) * f);
  }
  return out;
}

/**
 * RMS_norm over channels (vae.py RMS_norm = F.normalize(x, dim=1) * sqrt(C) * gamma), optional SiLU.
 * x: [C, ...rest] (any trailing shape), gamma: [C]. y[c] = x[c] / max(||x||, 1e-12) * sqrt(C) * gamma[c].
 */
export function rmsNorm(x: Tensor, gamma: Tensor, silu: boolean): Tensor {
  const C = x.shape[0]!;
  const P = x.data.length / C;
  const out = tensor(x.shape.slice());
  const scale = Math.sqrt(C);
  for (let p = 0; p < P; p++) {
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x.data[c * P + p]! ** 2;
    const inv = scale / Math.max(Math.sqrt(ss), 1e-12);
    for (let c = 0; c < C; c++) {
      const v = x.data[c * P + p]! * inv * gamma.data[c]!;
      out.data[c * P + p] = silu ? v / (1 + Math.exp(-v)) : v;
    }
  }
  return out;
}

/** Elementwise a + b (same shape). */
export function add(a: Tensor, b: Tensor): Tensor {
  if (a.data.length !== b.data.length) throw new Error(`add: shapes [${a.shape}] and [${b.shape}] differ`);
  const out = tensor(a.shape.slice());
  for (let i = 0; i < a.data.length; i++) out.data[i] = a.data[i]! + b.data[i]!;
  return out;
}

/** Nearest(-exact) 2x spatial upsampling per frame: x [C, T, H, W] -> [C, T, 2H, 2W], out[y][x] = in[y>>1][x>>1]. */
export function upsampleNearest2x(x: Tensor): Tensor {
  const [C, T, H, W] = x.shape as [number, number, number, number];
  const out = tensor([C, T, 2 * H, 2 * W]);
  for (let ct = 0; ct < C * T; ct++) for (let y = 0; y < 2 * H; y++) for (let xx = 0; xx < 2 * W; xx++) out.data[(ct * 2 * H + y) * 2 * W + xx] = x.data[(ct * H + (y >> 1)) * W + (xx >> 1)]!;
  return out;
}

/** Conv2d 3x3 padding 1 applied per frame: x [Cin, T, H, W], w [Cout, Cin, 3, 3] -> [Cout, T, H, W]. */
export function conv2dPerFrame(x: Tensor, w: Tensor, b: Tensor | null): Tensor {
  const [cout, cin, kh, kw] = w.shape as [number, number, number, number];
  // a 2D conv per frame is a causal 3D conv with kt = 1 and no cache
  return causalConv3d(x, null, { data: w.data, shape: [cout, cin, 1, kh, kw] }, b);
}

/**
 * time_conv + interleave of upsample3d: tc [2C, T, H, W] -> [C, 2T, H, W],
 * out[k, 2τ + s] = tc[s·C + k, τ] (the first half of the channels is the earlier sub-frame).
 */
export function interleaveTime(tc: Tensor): Tensor {
  const [C2, T, H, W] = tc.shape as [number, number, number, number];
  const C = C2 / 2;
  const out = tensor([C, 2 * T, H, W]);
  const f = H * W;
  for (let s = 0; s < 2; s++)
    for (let k = 0; k < C; k++) for (let t = 0; t < T; t++) out.data.set(tc.data.subarray(((s * C + k) * T + t) * f, ((s * C + k) * T + t + 1) * f), (k * 2 * T + 2 * t + s) * f);
  return out;
}

/**
 * Single-head attention over one frame (vae.py AttentionBlock), residual included.
 * x: [C, T, H, W], each frame independently: u = RMS_norm(x_t); qkv = Wqkv·u + b; A = softmax(q kᵀ/√C); out = x_t + Wproj·(A v) + b.
 * gamma [C], wqkv [3C, C], bqkv [3C], wproj [C, C], bproj [C].
 */
export function attention(x: Tensor, gamma: Tensor, wqkv: Tensor, bqkv: Tensor, wproj: Tensor, bproj: Tensor): Tensor {
  const [C, T, H, W] = x.shape as [number, number, number, number];
  const N = H * W;
  const out = tensor(x.shape.slice());
  const scale = 1 / Math.sqrt(C);
  for (let t = 0; t < T; t++) {
    const xt = tensor([C, N]);
    for (let c = 0; c < C; c++) xt.data.set(x.data.subarray((c * T + t) * N, (c * T + t + 1) * N), c * N);
    const u = rmsNorm(xt, gamma, false);
    const qkv = new Float64Array(3 * C * N);
    for (let o = 0; o < 3 * C; o++)
      for (let n = 0; n < N; n++) {
        let s = bqkv.data[o]!;
        for (let c = 0; c < C; c++) s += wqkv.data[o * C + c]! * u.data[c * N + n]!;
        qkv[o * N + n] = s;
      }
    const att = attentionCore(qkv, C, N, scale); // o[c, n]
    for (let o = 0; o < C; o++)
      for (let n = 0; n < N; n++) {
        let s = bproj.data[o]!;
        for (let c = 0; c < C; c++) s += wproj.data[o * C + c]! * att[c * N + n]!;
        out.data[(o * T + t) * N + n] = xt.data[o * N + n]! + s;
      }
  }
  return out;
}

/**
 * The core of single-head attention over N tokens: o[c, n] = Σ_k softmax_k(scale · q_n·k_k) v[c, k],
 * from qkv [3C, N] (rows 0..C-1 = q, C..2C-1 = k, 2C..3C-1 = v). f64 math; returns o [C, N].
 */
export function attentionCore(qkv: ArrayLike<number>, C: number, N: number, scale: number): Float64Array {
  const att = new Float64Array(C * N);
  const p = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    let m = -Infinity;
    for (let k = 0; k < N; k++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += qkv[c * N + n]! * qkv[(C + c) * N + k]!;
      p[k] = s * scale;
      m = Math.max(m, p[k]!);
    }
    let sum = 0;
    for (let k = 0; k < N; k++) sum += p[k] = Math.exp(p[k]! - m);
    for (let c = 0; c < C; c++) {
      let s = 0;
      for (let k = 0; k < N; k++) s += p[k]! * qkv[(2 * C + c) * N + k]!;
      att[c * N + n] = s / sum;
    }
  }
  return att;
}

/**
 * DupUp3D (vae2_2.py), parameter free: x [Cin, T, H, W] -> [Cout, T·ft, H·fs, W·fs] (first ft-1 frames
 * dropped when firstChunk). out[o, t·ft+a, y·fs+b, x·fs+c] = in[(o·ft·fs² + a·fs² + b·fs + c) // r, t, y, x],
 * r = Cout·ft·fs² / Cin.
 */
export function dupUp3d(x: Tensor, cout: number, ft: number, fs: number, firstChunk: boolean): Tensor {
  const [cin, T, H, W] = x.shape as [number, number, number, number];
  const r = (cout * ft * fs * fs) / cin;
  const drop = firstChunk ? ft - 1 : 0;
  const To = T * ft - drop,
    Ho = H * fs,
    Wo = W * fs;
  const out = tensor([cout, To, Ho, Wo]);
  for (let o = 0; o < cout; o++)
    for (let tt = 0; tt < To; tt++) {
      const tf = tt + drop,
        t = Math.floor(tf / ft),
        a = tf % ft;
      for (let yy = 0; yy < Ho; yy++)
        for (let xx = 0; xx < Wo; xx++) {
          const y = Math.floor(yy / fs),
            b = yy % fs,
            xs = Math.floor(xx / fs),
            c = xx % fs;
          const ci = Math.floor((o * ft * fs * fs + a * fs * fs + b * fs + c) / r);
          out.data[((o * To + tt) * Ho + yy) * Wo + xx] = x.data[((ci * T + t) * H + y) * W + xs]!;
        }
    }
  return out;
}

/** Unpatchify p=2 (vae2_2.py): x [12, T, h, w] -> [3, T, 2h, 2w], out[c, f, 2y+q, 2x+r] = in[4c + 2r + q, f, y, x]. */
export function unpatchify(x: Tensor): Tensor {
  const [C12, T, h, w] = x.shape as [number, number, number, number];
  const C = C12 / 4;
  const out = tensor([C, T, 2 * h, 2 * w]);
  for (let c = 0; c < C; c++)
    for (let f = 0; f < T; f++)
      for (let y = 0; y < 2 * h; y++)
        for (let xx = 0; xx < 2 * w; xx++) {
          const q = y & 1,
            r = xx & 1;
          out.data[((c * T + f) * 2 * h + y) * 2 * w + xx] = x.data[(((4 * c + 2 * r + q) * T + f) * h + (y >> 1)) * w + (xx >> 1)]!;
        }
  return out;
}

/** Clamp to [lo, hi] elementwise. */
export function clamp(x: Tensor, lo = -1, hi = 1): Tensor {
  const out = tensor(x.shape.slice());
  for (let i = 0; i < x.data.length; i++) out.data[i] = Math.min(hi, Math.max(lo, x.data[i]!));
  return out;
}
