// One weight load, as the GPU upload does it, for docs/file-formats.md: `npx tsx bench/checkpoints/load-file.ts FILE`.
// Opens FILE through a file handle (openWeights + fileSource: header or zip directory and data.pkl, then each
// decoder tensor once, in file order, converted to f32) and prints one JSON line: the load's figures
// (format, bytes read, tensor reads, peak CPU window, index and read ms), the wall time and the process's
// peak RSS (one file per process, so the peak is this load's). No GPU: the load alone.
import { statSync } from 'node:fs';
import { openWeights } from '../../src/model/weights';
import { fileSource } from '../../src/node/file-source';

async function main(path: string): Promise<void> {
  const t0 = performance.now();
  const src = fileSource(path);
  const w = await openWeights(src);
  let values = 0;
  for (const k of w.map.keys()) {
    values += w.get(k).data.length;
    w.releaseReads();
  }
  src.close();
  const wallMs = performance.now() - t0;
  const l = w.load!;
  console.log(
    JSON.stringify({
      file: path.split('/').pop(),
      fileBytes: statSync(path).size,
      format: l.format,
      decoderBytes: l.decoderBytes,
      decoderValues: values,
      bytesRead: l.bytesRead,
      tensorReads: l.reads,
      peakWindowBytes: l.peakWindowBytes,
      indexMs: Number(l.indexMs.toFixed(1)),
      readMs: Number(l.readMs.toFixed(1)),
      wallMs: Number(wallMs.toFixed(1)),
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

void main(process.argv[2]!);
