// Shared by the upload probes (upload-bw.mjs, copy-overlap.mjs): the host groups they upload and the check
// that a GPU buffer holds what was written. Node built-ins and the WebGPU globals only (the probes run on the
// GPU machine straight from the checkout, unbundled).

/** Three host groups of `bytes` bytes, distinct bytes each (as the weight groups are); group g uploads pattern g % 3. */
export function hostGroups(bytes) {
  return [0, 1, 2].map((k) => Uint8Array.from({ length: bytes }, (_, i) => (i * 7 + k * 31 + (i >> 12)) & 255));
}

/** Reads `buf` back and compares its first want.length bytes with `want`: 'ok', or where the first byte differs. */
export async function checkBytes(device, buf, want) {
  const rb = device.createBuffer({ size: want.length, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, rb, 0, want.length);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const got = new Uint8Array(rb.getMappedRange());
  let bad = -1;
  for (let i = 0; i < want.length; i++)
    if (got[i] !== want[i]) {
      bad = i;
      break;
    }
  rb.unmap();
  rb.destroy();
  return bad < 0 ? 'ok' : `FAILED at byte ${bad}`;
}
