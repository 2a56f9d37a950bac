// Loads onnxruntime-web's WebGPU build (the native WebGPU EP, `ort-wasm-simd-threaded.asyncify.wasm`)
// so that it works in a vite-served page / vitest browser mode and in Node on Dawn.
//
// Browser (vite): `onnxruntime-web/webgpu` resolves to `dist/ort.webgpu.bundle.min.mjs` (the wasm glue is
// inlined); vite's dependency pre-bundling moves it, so the .wasm it finds through import.meta.url would
// 404: its URL is taken from a `?url` import and set as `env.wasm.wasmPaths.wasm`.
// Node (WebGPU from the npm `webgpu` package as navigator.gpu, see src/node/install-webgpu.ts):
// `dist/ort.webgpu.min.mjs` is imported by file path (the package's exports map has no such subpath),
// and GPUQueue.writeBuffer is wrapped to copy SharedArrayBuffer views (the threaded wasm heap) into plain
// memory first: dawn.node refuses shared views (shared gpu/README.md).
import type { Ort } from './run-ort';

export interface LoadOrtOptions {
  /** Node only: the folder holding ort.webgpu.min.mjs and its wasm (default: the installed onnxruntime-web/dist) */
  distDir?: string;
  /** default 1: no wasm threads (the EP's work is on the GPU; workers only slow a 2-core CI machine) */
  numThreads?: number;
}

let loaded: Promise<Ort> | null = null;

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** onnxruntime-web with its WebGPU EP, ready for InferenceSession.create(..., { executionProviders: ['webgpu'] }). */
export function loadOrtWebGpu(opts: LoadOrtOptions = {}): Promise<Ort> {
  loaded ??= (isNode ? loadNode(opts) : loadBrowser()).then((ort) => {
    ort.env.wasm.numThreads = opts.numThreads ?? 1;
    return ort;
  });
  return loaded;
}

async function loadBrowser(): Promise<Ort> {
  const [ort, wasm] = await Promise.all([
    import('onnxruntime-web/webgpu') as Promise<Ort>,
    import('onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url').then((m: { default: string }) => m.default),
  ]);
  ort.env.wasm.wasmPaths = { wasm };
  return ort;
}

async function loadNode(opts: LoadOrtOptions): Promise<Ort> {
  const [{ createRequire }, { dirname, join }, { pathToFileURL }] = await Promise.all([import('node:module'), import('node:path'), import('node:url')]);
  const dist = opts.distDir ?? dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
  if (!(globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu) await (await import('../../src/node/install-webgpu')).installNodeWebGPU();
  patchWriteBufferForSharedMemory();
  const mod = (await import(/* @vite-ignore */ pathToFileURL(join(dist, 'ort.webgpu.min.mjs')).href)) as Ort & { default?: Ort };
  return mod.InferenceSession ? mod : mod.default!;
}

let patched = false;

/** dawn.node rejects writeBuffer from SharedArrayBuffer-backed data: copy such data to a plain buffer first. */
function patchWriteBufferForSharedMemory(): void {
  const proto = (globalThis as { GPUQueue?: { prototype: GPUQueue } }).GPUQueue?.prototype;
  if (patched || !proto || typeof SharedArrayBuffer === 'undefined') return;
  patched = true;
  const write = proto.writeBuffer as (this: GPUQueue, ...args: unknown[]) => undefined;
  proto.writeBuffer = function (this: GPUQueue, buffer: GPUBuffer, offset: GPUSize64, data: unknown, ...rest: unknown[]): undefined {
    if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
      // same element type, so dataOffset / size (in elements) stay valid
      const Ctor = data.constructor as new (src: ArrayBufferView) => ArrayBufferView;
      data = new Ctor(data);
    } else if (data instanceof SharedArrayBuffer) {
      data = new Uint8Array(data).slice().buffer;
    }
    return write.call(this, buffer, offset, data, ...rest);
  } as GPUQueue['writeBuffer'];
}
