// Probe (issue 24): does a weight upload overlap the compute on WebGPU's one queue? The expected-time model
// (src/plan/expected-time.ts) has priced streamed weights as hidden behind the compute with 3 or more ring slots,
// but exec/weight-stream.ts uploads a group just in time (its copy right before the segment that reads it), and a
// Vulkan pipeline barrier waits for all earlier work of its stages, not only the work on its buffer: the copy may
// run between two compute segments whatever the order. This probe times the orders the runtime could use.
// Each way runs GROUPS segments, one submission each, as the weight stream does; a segment is one compute pass
// of a kernel that reads its slot (one word per workgroup, so it depends on the slot) and spins ITERS fused
// multiply-adds per thread; an upload is the host copy into one of two MAP_WRITE buffers (mapped in turn, the
// wait for the one used two uploads before included) and a copyBufferToBuffer into a slot of a ring of 3:
//   compute        the segments alone (slot g % 3), no uploads
//   upload         the uploads alone (slot g % 3), no compute
//   just-in-time   upload into slot g % 3, then the segment reading it (the runtime today)
//   one-ahead      upload group g + 1 into slot (g + 1) % 3 (its old group g - 2 is done), then segment g reading
//                  slot g % 3, written one step before: what a prefetch with 3 slots would submit
//   independent    upload into slot g % 3, then a segment that reads no slot (the same kernel on a 4th buffer):
//                  no data dependency at all, the bound of any order
// ITERS is calibrated first so one segment takes about as long as one upload (the overlap is then easiest to see).
// Per way one JSON line: seconds; for the mixed ways `overlap` = (compute + upload - way) / min(compute, upload):
// 1 = the shorter one fully hidden, 0 = serialized. The last slot written by each mixed way is read back and
// compared with the bytes written (`check`).
// Run on the GPU machine after `source .gpu-bundle/boot.sh`: node bench/probes/copy-overlap.mjs [GROUP_MiB] [GROUPS] [OUT.jsonl]
// (lavapipe: `node bench/probes/copy-overlap.mjs 4 6` runs it in seconds; its figures say nothing of a GPU).
import { appendFileSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { checkBytes, hostGroups } from './upload-check.mjs';
Object.assign(globalThis, globals);
const gpu = create(['enable-dawn-features=allow_unsafe_apis']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize } });
const MiB = 2 ** 20;
const group = Number(process.argv[2] ?? 64) * MiB;
const groups = Math.max(3, Number(process.argv[3] ?? 24));
const outFile = process.argv[4];
const info = adapter.info ?? {};
const adapterName = `${info.vendor ?? ''} ${info.description ?? ''}`.trim();

// host groups: distinct bytes each (as the weight groups), 3 patterns in turn
const host = hostGroups(group);
const slots = [0, 1, 2, 3].map((k) => device.createBuffer({ label: `slot ${k}`, size: group, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | GPUBufferUsage.STORAGE }));
const staging = [0, 1].map((k) => device.createBuffer({ label: `upload ${k}`, size: group, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true }));
const mapped = [null, null];
let turn = 0;

const WG = 256;
const workgroups = 4096;
const out = device.createBuffer({ size: workgroups * WG * 4, usage: GPUBufferUsage.STORAGE });
const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
const module = device.createShaderModule({
  code: /* wgsl */ `
@group(0) @binding(0) var<storage, read> slot: array<u32>;
@group(0) @binding(1) var<storage, read_write> outv: array<f32>;
@group(0) @binding(2) var<uniform> p: vec4<u32>;
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  var a = f32(slot[(wid.x * 4099u) % arrayLength(&slot)] & 255u) * 1e-3 + f32(gid.x) * 1e-7;
  var b = 0.999;
  for (var i = 0u; i < p.x; i++) {
    a = fma(a, b, 1e-4);
    b = fma(b, a, -1e-4);
  }
  outv[gid.x] = a + b;
}`,
});
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const bind = slots.map((s) =>
  device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: s } },
      { binding: 1, resource: { buffer: out } },
      { binding: 2, resource: { buffer: params } },
    ],
  }),
);

/** one upload: the host copy of pattern `g % 3` into the next mapped buffer, then its copy into slot `k` (recorded into `enc`) */
async function upload(enc, g, k) {
  const b = turn;
  turn ^= 1;
  if (mapped[b]) await mapped[b];
  mapped[b] = null;
  new Uint8Array(staging[b].getMappedRange()).set(host[g % 3]);
  staging[b].unmap();
  enc.copyBufferToBuffer(staging[b], 0, slots[k], 0, group);
  return b;
}
const remap = (b) => {
  const m = staging[b].mapAsync(GPUMapMode.WRITE);
  m.catch(() => undefined);
  mapped[b] = m;
};
const segment = (enc, k) => {
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind[k]);
  pass.dispatchWorkgroups(workgroups);
  pass.end();
};

/** submits step by step: `plan(g)` = [{ upload: [group, slot] } | { segment: slot }] in queue order, one submission per step's encoder */
async function run(plan) {
  await device.queue.onSubmittedWorkDone();
  const t0 = performance.now();
  for (let g = 0; g < groups; g++) {
    for (const step of plan(g)) {
      const enc = device.createCommandEncoder();
      let b = -1;
      if (step.upload) b = await upload(enc, ...step.upload);
      else segment(enc, step.segment);
      device.queue.submit([enc.finish()]);
      if (b >= 0) remap(b);
    }
  }
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - t0) / 1000;
}

async function check(k, g) {
  return checkBytes(device, slots[k], host[g % 3]);
}

const setIters = (n) => device.queue.writeBuffer(params, 0, new Uint32Array([n, 0, 0, 0]));
const ways = {
  compute: (g) => [{ segment: g % 3 }],
  upload: (g) => [{ upload: [g, g % 3] }],
  'just-in-time': (g) => [{ upload: [g, g % 3] }, { segment: g % 3 }],
  'one-ahead': (g) => [...(g === 0 ? [{ upload: [0, 0] }] : []), ...(g + 1 < groups ? [{ upload: [g + 1, (g + 1) % 3] }] : []), { segment: g % 3 }],
  independent: (g) => [{ upload: [g, g % 3] }, { segment: 3 }],
};

// calibrate: one upload's time, then ITERS so that one segment takes about as long
let iters = 256;
setIters(iters);
await run(ways.upload); // warm-up (allocation, page faults)
const perUpload = (await run(ways.upload)) / groups;
for (let tries = 0; tries < 8; tries++) {
  const perSegment = (await run(ways.compute)) / groups;
  const ratio = perUpload / perSegment;
  if (ratio > 0.8 && ratio < 1.25) break;
  iters = Math.max(1, Math.min(1 << 24, Math.round(iters * ratio)));
  setIters(iters);
}

const lastSlot = (groups - 1) % 3;
const seconds = {};
const checks = {};
for (const name of Object.keys(ways)) {
  seconds[name] = await run(ways[name]);
  if (name !== 'compute' && name !== 'upload') checks[name] = await check(lastSlot, groups - 1);
}
for (const [name, s] of Object.entries(seconds)) {
  const c = seconds.compute;
  const u = seconds.upload;
  const line = {
    probe: 'copy-overlap',
    way: name,
    groupMiB: group / MiB,
    groups,
    iters,
    seconds: +s.toFixed(4),
    ...(checks[name] ? { overlap: +((c + u - s) / Math.min(c, u)).toFixed(2), check: checks[name] } : {}),
    ...(name === 'upload' ? { GBps: +((groups * group) / s / 1e9).toFixed(2) } : {}),
    adapter: adapterName,
  };
  console.log(JSON.stringify(line));
  if (outFile) appendFileSync(outFile, JSON.stringify(line) + '\n');
}
device.destroy();
