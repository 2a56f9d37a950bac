#!/usr/bin/env node
// Compares two float32 .npy videos written by `wan-vae decode --out` (same shape): max |err|, PSNR over
// the [-1, 1] range, and the shapes. Used by bench/h200/run.sh (scenarios mma, levers, int8, winograd) to check a tensor-core decode against
// the portable one. Usage: node scripts/compare-npy.mjs a.npy b.npy
import { readFileSync } from 'node:fs';

function readNpy(path) {
  const b = readFileSync(path);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
  // magic (6 bytes), major, minor, header length (2 bytes in v1, 4 in v2/v3), header, data
  const v1 = b[6] === 1;
  const hlen = v1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = (v1 ? 10 : 12) + hlen;
  const header = b.toString('latin1', v1 ? 10 : 12, start);
  if (!/'descr':\s*'<f4'/.test(header)) throw new Error(`${path}: expected float32 (<f4), header ${header.trim()}`);
  const shape = /'shape':\s*\(([^)]*)\)/
    .exec(header)[1]
    .split(',')
    .filter((s) => s.trim())
    .map(Number);
  const data = new Float32Array(b.buffer.slice(b.byteOffset + start, b.byteOffset + b.length));
  return { shape, data };
}

const [pa, pb] = process.argv.slice(2);
if (!pa || !pb) {
  console.error('usage: node scripts/compare-npy.mjs a.npy b.npy');
  process.exit(2);
}
const a = readNpy(pa),
  b = readNpy(pb);
if (a.shape.join() !== b.shape.join()) {
  console.error(`shapes differ: [${a.shape}] vs [${b.shape}]`);
  process.exit(1);
}
let maxAbs = 0,
  se = 0;
for (let i = 0; i < a.data.length; i++) {
  const d = a.data[i] - b.data[i];
  maxAbs = Math.max(maxAbs, Math.abs(d));
  se += d * d;
}
const mse = se / a.data.length;
console.log(JSON.stringify({ a: pa, b: pb, shape: a.shape, maxAbs, psnr: mse ? 10 * Math.log10(4 / mse) : Infinity }));
