#!/usr/bin/env node
// Zeroing GPU buffers two ways, as the decoder zeroes its cache rings at every decode (and every tile in
// tile-major order): queue.writeBuffer of host zeros (what it did until 2026-11-30) vs
// GPUCommandEncoder.clearBuffer (what it does now). Node + Dawn on this machine's adapter (lavapipe).
// Usage: node scripts/ring-clear-bench.mjs [GiB=1]   (prints ms for each way)
import { existsSync } from 'node:fs';

// as src/node/install-webgpu.ts: Mesa lavapipe unless a Vulkan ICD is chosen (set before Dawn loads)
const LAVAPIPE = '/usr/share/vulkan/icd.d/lvp_icd.json';
if (!process.env.VK_ICD_FILENAMES && existsSync(LAVAPIPE)) process.env.VK_ICD_FILENAMES = LAVAPIPE;
const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gib = Number(process.argv[2] ?? 1);
const gpu = create([]); // keep a reference: if the instance is collected, its promises never resolve
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize } });
const size = 128 * 2 ** 20,
  n = Math.max(1, Math.round((gib * 2 ** 30) / size));
const bufs = Array.from({ length: n }, () => device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }));
await device.queue.onSubmittedWorkDone();
let t = performance.now();
for (const b of bufs) device.queue.writeBuffer(b, 0, new Uint8Array(size));
await device.queue.onSubmittedWorkDone();
const write = performance.now() - t;
t = performance.now();
const enc = device.createCommandEncoder();
for (const b of bufs) enc.clearBuffer(b);
device.queue.submit([enc.finish()]);
await device.queue.onSubmittedWorkDone();
const clear = performance.now() - t;
console.log(JSON.stringify({ gib: (n * size) / 2 ** 30, writeBufferZerosMs: Math.round(write), clearBufferMs: Math.round(clear) }));
for (const b of bufs) b.destroy();
device.destroy();
