// Probe (issue 14): how fast bytes reach a GPU buffer through Dawn, the bound of weight streaming (the
// H200 decodes moved streamed weights at ~2 GB/s: src/plan/expected-time.ts). Each way writes `total`
// bytes into a ring of two destination buffers of `group` bytes (as the weight stream's slots), one
// group at a time, and waits for the queue at the end:
//   write          queue.writeBuffer of the whole group (src/runtime/exec/weight-stream.ts today)
//   write-4m       the same in 4 MiB pieces (Dawn's upload ring handles small writes in place; larger
//                  ones get a staging buffer of their own per call)
//   write-32m      the same in 32 MiB pieces
//   staged         two MAP_WRITE staging buffers made once: mapAsync, copy into the mapped range, unmap,
//                  copyBufferToBuffer (the CPU waits only for the staging buffer used two groups before)
// A warm-up pass of `write` comes first and `write` runs again last (allocator state, page faults).
// The last group of each way is read back and compared byte for byte with what was written (a way that
// loses or reorders bytes fails the check, printed). Prints one JSON line per way: GB/s.
// Run on the GPU machine after `source .gpu-bundle/boot.sh`: node bench/probes/upload-bw.mjs [GROUP_MiB] [TOTAL_MiB] [OUT.jsonl]
import { appendFileSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { checkBytes, hostGroups } from './upload-check.mjs';
Object.assign(globalThis, globals);
const gpu = create(['enable-dawn-features=allow_unsafe_apis']);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize } });
const MiB = 2 ** 20;
const group = Number(process.argv[2] ?? 64) * MiB;
const total = Number(process.argv[3] ?? 1024) * MiB;
const outFile = process.argv[4];
const groups = Math.max(2, Math.round(total / group));
// host data: distinct bytes per group, as the weight groups are
const host = hostGroups(group);
const dst = [0, 1].map(() => device.createBuffer({ size: group, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | GPUBufferUsage.STORAGE }));

async function check(g) {
  return checkBytes(device, dst[g % 2], host[g % 3]);
}

const ways = {
  write: (g) => device.queue.writeBuffer(dst[g % 2], 0, host[g % 3]),
  'write-4m': (g) => {
    for (let o = 0; o < group; o += 4 * MiB) device.queue.writeBuffer(dst[g % 2], o, host[g % 3], o, Math.min(4 * MiB, group - o));
  },
  'write-32m': (g) => {
    for (let o = 0; o < group; o += 32 * MiB) device.queue.writeBuffer(dst[g % 2], o, host[g % 3], o, Math.min(32 * MiB, group - o));
  },
};
const staging = [0, 1].map(() => device.createBuffer({ size: group, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true }));
const mapped = [true, true];
async function staged(g) {
  const s = staging[g % 2];
  if (!mapped[g % 2]) await s.mapAsync(GPUMapMode.WRITE);
  new Uint8Array(s.getMappedRange()).set(host[g % 3]);
  s.unmap();
  mapped[g % 2] = false;
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(s, 0, dst[g % 2], 0, group);
  device.queue.submit([enc.finish()]);
}

const info = adapter.info ?? {};
for (const [name, fn] of [['warm-up', ways.write], ...Object.entries(ways), ['staged', staged], ['write (again)', ways.write]]) {
  await device.queue.onSubmittedWorkDone();
  const t0 = performance.now();
  for (let g = 0; g < groups; g++) {
    await fn(g);
    // a submit per group, as the weight stream's segments (its compute would sit here)
    device.queue.submit([]);
  }
  await device.queue.onSubmittedWorkDone();
  const s = (performance.now() - t0) / 1000;
  const line = {
    probe: 'upload-bw',
    way: name,
    groupMiB: group / MiB,
    groups,
    GBps: +((groups * group) / s / 1e9).toFixed(2),
    seconds: +s.toFixed(3),
    check: await check(groups - 1),
    adapter: `${info.vendor ?? ''} ${info.description ?? ''}`.trim(),
  };
  console.log(JSON.stringify(line));
  if (outFile) appendFileSync(outFile, JSON.stringify(line) + '\n');
}
