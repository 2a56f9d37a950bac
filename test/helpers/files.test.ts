import { describe, expect, it } from 'vitest';
import { isCI } from './env';
import { readSharedFile, sharedAvailable } from './files';

describe('readSharedFile', () => {
  it('reads the safetensors header length of golden/wan21-tiny.safetensors', async (ctx) => {
    if (!(await sharedAvailable())) {
      if (isCI()) throw new Error('../shared is missing under CI');
      ctx.skip('../shared is absent');
    }
    const bytes = await readSharedFile('golden/wan21-tiny.safetensors');
    expect(bytes).not.toBeNull();
    expect(bytes!.byteLength).toBeGreaterThan(8);
    const headerLen = new DataView(bytes!.buffer, bytes!.byteOffset, 8).getBigUint64(0, true);
    expect(headerLen).toBeGreaterThan(0n);
    expect(headerLen).toBeLessThan(1_000_000n);
    const header = JSON.parse(new TextDecoder().decode(bytes!.subarray(8, 8 + Number(headerLen)))) as object;
    expect(Object.keys(header).length).toBeGreaterThan(0);
  });

  it('rejects a missing file inside ../shared', async (ctx) => {
    if (!(await sharedAvailable())) ctx.skip('../shared is absent');
    await expect(readSharedFile('golden/does-not-exist.safetensors')).rejects.toThrow();
  });
});
