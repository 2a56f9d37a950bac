// Video export through WebCodecs with mediabunny: frames are drawn (nearest-neighbour scaled) onto an
// OffscreenCanvas and encoded by a CanvasSource into WebM (VP9, VP8, AV1) or MP4 (H.264, VP9, AV1,
// HEVC), whichever codec this browser can encode first. Throws ExportUnavailable when none can.
import { BufferTarget, CanvasSource, getFirstEncodableVideoCodec, Mp4OutputFormat, Output, QUALITY_HIGH, WebMOutputFormat, type VideoCodec } from 'mediabunny';

export type Container = 'webm' | 'mp4';

/** The browser cannot encode video: the caller falls back to PNG frames. */
export class ExportUnavailable extends Error {
  override name = 'ExportUnavailable';
}

export interface VideoExport {
  blob: Blob;
  codec: VideoCodec;
  extension: string;
}

const PREFERRED: Record<Container, VideoCodec[]> = {
  webm: ['vp9', 'vp8', 'av1'],
  mp4: ['avc', 'vp9', 'av1', 'hevc'],
};

export async function exportVideo(
  frames: Uint8ClampedArray[],
  width: number,
  height: number,
  opts: { fps: number; scale: number; container: Container; onProgress?: (done: number) => void },
): Promise<VideoExport> {
  if (typeof VideoEncoder === 'undefined') throw new ExportUnavailable('this browser has no WebCodecs VideoEncoder');
  if (typeof OffscreenCanvas === 'undefined') throw new ExportUnavailable('this browser has no OffscreenCanvas');
  const W = width * opts.scale,
    H = height * opts.scale;
  const format = opts.container === 'webm' ? new WebMOutputFormat() : new Mp4OutputFormat({ fastStart: 'in-memory' });
  const supported = format.getSupportedVideoCodecs();
  const candidates = PREFERRED[opts.container].filter((c) => supported.includes(c));
  const codec = await getFirstEncodableVideoCodec(candidates, { width: W, height: H });
  if (!codec) throw new ExportUnavailable(`no ${opts.container.toUpperCase()} codec (${candidates.join(', ')}) can be encoded by this browser at ${W}×${H}`);

  const canvas = new OffscreenCanvas(W, H);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new ExportUnavailable('no 2d context on OffscreenCanvas');
  ctx.imageSmoothingEnabled = false;
  const tile = new OffscreenCanvas(width, height);
  const tctx = tile.getContext('2d')!;

  const output = new Output({ format, target: new BufferTarget() });
  const source = new CanvasSource(canvas, { codec, quality: QUALITY_HIGH, keyFrameInterval: 1 });
  output.addVideoTrack(source, { frameRate: opts.fps });
  await output.start();
  try {
    for (let i = 0; i < frames.length; i++) {
      tctx.putImageData(new ImageData(new Uint8ClampedArray(frames[i]!), width, height), 0, 0);
      ctx.drawImage(tile, 0, 0, W, H);
      await source.add(i / opts.fps, 1 / opts.fps);
      opts.onProgress?.(i + 1);
    }
    source.close();
    await output.finalize();
  } catch (e) {
    await output.cancel().catch(() => {});
    throw e;
  }
  const buffer = output.target.buffer;
  if (!buffer || buffer.byteLength === 0) throw new Error('video export produced an empty file');
  return { blob: new Blob([buffer], { type: format.mimeType }), codec, extension: format.fileExtension };
}
