// Runs the chunk models of build-decoder.ts with onnxruntime-web's WebGPU execution provider: the
// official chunk loop (one latent frame per run), the feature cache kept on the GPU between runs
// (outputs in 'gpu-buffer', fed back as the next run's inputs), peak GPU bytes counted by wrapping
// GPUDevice.prototype.createBuffer / GPUBuffer.prototype.destroy for the duration of the call
// (bench/lib/byte-counter.ts, the counter of our own decode in the benchmark).
//
// The caller passes the onnxruntime-web module (`ort`), already configured (wasm paths; see
// load-ort.ts): this file imports no runtime code from it, so it bundles for a page, a worker or Node.
import type * as OrtTypes from 'onnxruntime-web';
import type { DecoderConfig } from '../../src/model/config';
import { ByteCounter } from '../lib/byte-counter';

export type Ort = typeof OrtTypes;

/** A chunk model: ONNX bytes, or bytes plus external weight files (buildChunk's result fits as is). */
export type OrtChunkModel = Uint8Array | { bytes: Uint8Array; externalData?: readonly { path: string; data: Uint8Array }[] };
type OrtTensor = OrtTypes.Tensor;
type OrtSession = OrtTypes.InferenceSession;

export interface OrtDecodeOptions {
  ort: Ort;
  /**
   * The GPUDevice onnxruntime runs on (for a side-by-side benchmark: the one our decoder uses). Without
   * it onnxruntime requests its own device, and buffers of every device are counted.
   */
  device?: GPUDevice;
  /** release the chunk-0 session before creating the steady one (default true: one set of weights at a time) */
  releaseFirst?: boolean;
  /** allow nodes onnxruntime cannot place on WebGPU to run on its CPU (wasm) EP (default false: fail instead) */
  allowCpuFallback?: boolean;
  /**
   * extra WebGPU EP options (e.g. preferredLayout). Default validationMode 'wgpuOnly' (in a browser the
   * same as 'disabled', onnxruntime's fastest; in Node it keeps Dawn's own validation).
   */
  epOptions?: Omit<OrtTypes.InferenceSession.WebGpuExecutionProviderOption, 'name' | 'device'>;
  /** each chunk's clamped video [3, F_chunk, H, W] as soon as it is read back */
  onChunk?: (video: Float32Array, index: number, frames: number) => void;
}

export interface OrtDecodeResult {
  /** [3, F, H, W], clamped to [-1, 1] */
  video: Float32Array;
  frames: number;
  height: number;
  width: number;
  /** wall time of the whole call: session creation, every run, every readback */
  seconds: number;
  /** session creation (model parse, weight upload, graph optimisation) */
  createSeconds: { first: number; steady: number };
  /** per chunk: run + readback of the video (chunk 0 and chunk 1 include onnxruntime's shader compiles) */
  chunkSeconds: number[];
  /** highest sum of sizes of live GPU buffers created during the call */
  peakGpuBytes: number;
  /** bytes still live at the end (onnxruntime's buffer cache that session release did not destroy) */
  liveGpuBytesAtEnd: number;
  buffersCreated: number;
}

function quietly(f: () => void): void {
  try {
    f();
  } catch {
    // ignored
  }
}

const now = () => performance.now() / 1000;

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Decodes de-normalised latents [zDim, T, h, w] with the two chunk models (buildChunkModel 'first' and
 * 'steady', same layout, same h and w) on onnxruntime-web's WebGPU EP. Throws an Error naming the stage
 * (session creation / run of chunk i / readback) and onnxruntime's message when onnxruntime fails.
 */
export async function runOrtDecode(
  modelFirst: OrtChunkModel,
  modelSteady: OrtChunkModel,
  latents: { data: Float32Array; shape: readonly number[] },
  cfg: DecoderConfig,
  opts: OrtDecodeOptions,
): Promise<OrtDecodeResult> {
  const { ort, device } = opts;
  const [z, T, h, w] = latents.shape as [number, number, number, number];
  if (latents.shape.length !== 4 || z !== cfg.zDim) throw new Error(`runOrtDecode: latents must be [${cfg.zDim}, T, h, w], got [${latents.shape}]`);
  if (latents.data.length !== z * T * h * w) throw new Error(`runOrtDecode: ${latents.data.length} latent values for shape [${latents.shape}]`);
  const H = h * cfg.scale,
    W = w * cfg.scale;
  const tUp = cfg.upBlocks.filter((b) => b.resample?.mode === 'upsample3d').length;
  const F = 1 + (T - 1) * 2 ** tUp;
  const video = new Float32Array(3 * F * H * W);

  const started = now();
  const counter = new ByteCounter(device, 'runOrtDecode');
  const ep: OrtTypes.InferenceSession.WebGpuExecutionProviderOption = { validationMode: 'wgpuOnly', ...opts.epOptions, name: 'webgpu', ...(device ? { device } : {}) };
  const sessionOptions: OrtTypes.InferenceSession.SessionOptions = {
    executionProviders: [ep],
    graphOptimizationLevel: 'all',
    // every output stays on the GPU: caches are fed back as inputs, the video is downloaded explicitly
    preferredOutputLocation: 'gpu-buffer',
    extra: opts.allowCpuFallback ? {} : { session: { disable_cpu_ep_fallback: '1' } },
  };
  const createSeconds = { first: 0, steady: 0 };
  const chunkSeconds: number[] = [];
  let cache = new Map<string, OrtTensor>(); // cache_out_<slot> of the previous chunk
  const sessions: OrtSession[] = [];
  const zeroBuffers: GPUBuffer[] = [];

  const create = async (model: OrtChunkModel, kind: 'first' | 'steady'): Promise<OrtSession> => {
    const t0 = now();
    const bytes = model instanceof Uint8Array ? model : model.bytes;
    const external = model instanceof Uint8Array ? [] : (model.externalData ?? []);
    try {
      const s = await ort.InferenceSession.create(bytes, external.length ? { ...sessionOptions, externalData: external.map((f) => ({ path: f.path, data: f.data })) } : sessionOptions);
      sessions.push(s);
      return s;
    } catch (e) {
      throw new Error(
        `onnxruntime-web could not create the '${kind}' chunk session on the WebGPU EP (model ${(bytes.byteLength / 2 ** 20).toFixed(1)} MiB` +
          `${external.length ? ` + ${external.length} external weight files, ${(external.reduce((a, f) => a + f.data.byteLength, 0) / 2 ** 20).toFixed(1)} MiB` : ''}): ${describe(e)}`,
        { cause: e },
      );
    } finally {
      createSeconds[kind] = now() - t0;
    }
  };

  const frameInput = (i: number): OrtTensor => {
    const x = new Float32Array(z * h * w);
    for (let c = 0; c < z; c++) x.set(latents.data.subarray((c * T + i) * h * w, (c * T + i + 1) * h * w), c * h * w);
    return new ort.Tensor('float32', x, [1, z, 1, h, w]);
  };

  /** A zero-filled GPU tensor (WebGPU buffers start zeroed): time_conv caches after chunk 0 ('Rep'). */
  const zeros = async (dims: readonly number[]): Promise<OrtTensor> => {
    const dev = device ?? ((await ort.env.webgpu.device) as GPUDevice);
    const bytes = dims.reduce((a, b) => a * b, 1) * 4;
    const buf = dev.createBuffer({ size: Math.ceil(bytes / 16) * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    zeroBuffers.push(buf);
    return ort.Tensor.fromGpuBuffer(buf, { dataType: 'float32', dims });
  };

  /** Copies of ORT-owned GPU tensors in buffers we own (destroyed when the tensor is disposed). */
  const detach = async (tensors: Map<string, OrtTensor>): Promise<Map<string, OrtTensor>> => {
    const dev = device ?? ((await ort.env.webgpu.device) as GPUDevice);
    const enc = dev.createCommandEncoder();
    const out = new Map<string, OrtTensor>();
    for (const [k, t] of tensors) {
      const src = t.gpuBuffer as GPUBuffer;
      const size = Math.ceil((t.size * 4) / 16) * 16;
      const buf = dev.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      enc.copyBufferToBuffer(src, 0, buf, 0, Math.min(size, src.size));
      out.set(k, ort.Tensor.fromGpuBuffer(buf, { dataType: 'float32', dims: t.dims, dispose: () => buf.destroy() }));
    }
    dev.queue.submit([enc.finish()]);
    await dev.queue.onSubmittedWorkDone();
    for (const t of tensors.values()) t.dispose();
    return out;
  };

  const runChunk = async (session: OrtSession, i: number): Promise<void> => {
    const feeds: Record<string, OrtTensor> = { x: frameInput(i) };
    for (const meta of session.inputMetadata) {
      if (meta.name === 'x') continue;
      const slot = /^cache_in_(\d+)$/.exec(meta.name)?.[1];
      if (slot === undefined || !meta.isTensor) throw new Error(`runOrtDecode: unexpected model input ${meta.name}`);
      const prev = cache.get(`cache_out_${slot}`);
      if (prev) feeds[meta.name] = prev;
      else {
        if (i !== 1) throw new Error(`runOrtDecode: chunk ${i} has no cache for ${meta.name}`);
        const dims = meta.shape.map((d) => (typeof d === 'number' ? d : NaN));
        if (dims.some(Number.isNaN)) throw new Error(`runOrtDecode: ${meta.name} has a symbolic shape [${meta.shape}]`);
        feeds[meta.name] = await zeros(dims);
      }
    }
    const t0 = now();
    let out: OrtTypes.InferenceSession.ReturnType;
    try {
      out = await session.run(feeds);
    } catch (e) {
      throw new Error(`onnxruntime-web failed running chunk ${i} ('${i === 0 ? 'first' : 'steady'}' model) on the WebGPU EP: ${describe(e)}`, { cause: e });
    }
    const v = out.video;
    if (!v) throw new Error('runOrtDecode: the model has no `video` output');
    let data: Float32Array;
    try {
      data = (await v.getData(true)) as Float32Array;
    } catch (e) {
      throw new Error(`onnxruntime-web could not read back the video of chunk ${i}: ${describe(e)}`, { cause: e });
    }
    chunkSeconds.push(now() - t0);
    const [, , fc, hc, wc] = v.dims as [number, number, number, number, number];
    if (hc !== H || wc !== W) throw new Error(`runOrtDecode: chunk ${i} video is ${hc}x${wc}, expected ${H}x${W} (models built for another latent size?)`);
    const f0 = i === 0 ? 0 : 1 + (i - 1) * 2 ** tUp;
    if (f0 + fc > F) throw new Error(`runOrtDecode: chunk ${i} gives ${fc} frames, more than the ${F - f0} left`);
    for (let c = 0; c < 3; c++) video.set(data.subarray(c * fc * H * W, (c + 1) * fc * H * W), (c * F + f0) * H * W);
    opts.onChunk?.(data, i, fc);
    // the previous caches were this run's inputs: release them, keep the new ones
    for (const t of cache.values()) t.dispose();
    cache = new Map(Object.entries(out).filter(([k]) => k.startsWith('cache_out_')));
    for (const [k, t] of Object.entries(out)) if (k !== 'video' && !k.startsWith('cache_out_')) t.dispose();
  };

  try {
    let session = await create(modelFirst, 'first');
    await runChunk(session, 0);
    if (T > 1) {
      if (opts.releaseFirst ?? true) {
        // ORT-owned outputs cannot outlive their session (disposing them afterwards crashes the wasm):
        // move the chunk-0 caches into our own buffers, then release the session and its weights
        cache = await detach(cache);
        await session.release();
        sessions.splice(sessions.indexOf(session), 1);
      }
      session = await create(modelSteady, 'steady');
      for (let i = 1; i < T; i++) {
        await runChunk(session, i);
        // the zero time_conv caches of chunk 1 are no longer referenced
        if (i === 1) for (const b of zeroBuffers.splice(0)) b.destroy();
      }
    }
  } finally {
    // cleanup must not mask the error that got us here
    for (const t of cache.values()) quietly(() => t.dispose());
    for (const s of sessions) await s.release().catch(() => undefined);
    for (const b of zeroBuffers) quietly(() => b.destroy());
    counter.stop();
  }
  return {
    video,
    frames: F,
    height: H,
    width: W,
    seconds: now() - started,
    createSeconds,
    chunkSeconds,
    peakGpuBytes: counter.peak,
    liveGpuBytesAtEnd: counter.live,
    buffersCreated: counter.created,
  };
}
