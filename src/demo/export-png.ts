// PNG export: one PNG per frame (each its own download; no zip), or the frame shown now.
import { download } from './download';

export async function pngBlob(rgba: Uint8ClampedArray, width: number, height: number): Promise<Blob> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context on OffscreenCanvas');
  ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba), width, height), 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}

export function pngName(base: string, index: number): string {
  return `${base}-frame${String(index + 1).padStart(4, '0')}.png`;
}

/** Download frames as PNG files, one after another (a short pause keeps browsers from dropping some). */
export async function downloadPngs(frames: { index: number; rgba: Uint8ClampedArray }[], width: number, height: number, base: string, onProgress?: (done: number) => void): Promise<void> {
  let done = 0;
  for (const f of frames) {
    download(await pngBlob(f.rgba, width, height), pngName(base, f.index));
    onProgress?.(++done);
    await new Promise((r) => setTimeout(r, 150));
  }
}
