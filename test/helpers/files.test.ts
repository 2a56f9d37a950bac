import { describe, expect, it } from 'vitest';
import { readSharedFile } from './files';
import { needShared } from './need';

describe('readSharedFile', () => {
  it('reads the safetensors header length of golden/wan21-tiny.safetensors', async (ctx) => {
    await needShared(ctx);
    const bytes = await readSharedFile('golden/wan21-tiny.safetensors');
    expect(bytes).not.toBeNull();
    expect(bytes!.byteLength).toBeGreaterThan(8);
    const headerLen = new DataView(bytes!.buffer, bytes!.byteOffset, 8).getBigUint64(0, true);
    expect(headerLen).toBeGreaterThan(0n);
    expect(headerLen).toBeLessThan(1_000_000n);
    const header = JSON.parse(new TextDecoder().decode(bytes!.subarray(8, 8 + Number(headerLen)))) as Record<string, { data_offsets?: [number, number] }>;
    // the whole file came back: it ends where its last tensor ends (a truncated or padded read fails)
    const end = Math.max(...Object.values(header).map((t) => t.data_offsets?.[1] ?? 0));
    expect(bytes!.byteLength).toBe(8 + Number(headerLen) + end);
    expect(header).toHaveProperty('@latents');
  });

  it('rejects a missing file inside ../shared', async (ctx) => {
    await needShared(ctx);
    await expect(readSharedFile('golden/does-not-exist.safetensors')).rejects.toThrow();
  });
});
