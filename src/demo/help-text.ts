// The option explanations the page shows, in a user's words, where the schema's help (src/options/schema.ts,
// shared with the CLI's --help) speaks of flags or kernels. Options not listed here show the schema's help.
import type { OptionKey } from '../options/schema';

export const PAGE_HELP: Partial<Record<OptionKey, string>> = {
  cache:
    'on: each frame is decoded remembering the frames before it, exactly as Wan decodes (1 + 4(T−1) frames from T latent frames); off: every latent frame on its own, as the official per-frame loop without memory (T frames, Wan2.1 only).',
  precision: 'How numbers are kept on the GPU while decoding: f32 exact; f16 half the memory, very close to f32 (sums stay f32). auto: f32, f16 only when nothing in f32 fits.',
  tile: 'Decode each frame in pieces (a grid of tiles) when whole frames need more GPU memory than there is: less memory, more work. auto: whole frames when they fit, else the fewest tiles that do.',
  tileMode: 'exact: each tile overlaps its neighbours enough that the video is identical to whole frames; blend: a small overlap, blended at the seams, faster but not exact.',
  weightsPrecision:
    'How the model weights are kept on the GPU: f32 (exact), f16 (half the memory) or int8 (a quarter; close to, but not exactly, the f32 result). auto: f16, then int8, only when nothing else fits the budget.',
  tileOrder:
    "tile-major: the GPU keeps one tile's memory at a time and the frames appear at the end (this tab keeps every frame until then); frame-major: every tile stays on the GPU and frames appear as they are decoded. auto: tile-major, else frame-major when tile-major would need too much of this computer's memory.",
  tileStore:
    "Tile-major only: where the decoder keeps its half-way result of every frame while it works through the tiles. gpu: on the GPU; cpu: in this computer's memory, sent to the GPU a piece before each tile (less GPU memory, more copying). auto: gpu, else cpu.",
  cacheOffload:
    "Frame-major tiles only: on keeps the remembered frames of the tiles not being decoded in this computer's memory (the GPU holds one tile's), exact but with more copying; auto: on only when nothing fits without it.",
  norm: 'Where each normalisation step keeps its result, all exact. full: a separate buffer (as PyTorch); chunked: in place, a chunk of pixels at a time; fused: computed while the next layer reads its input (least memory for whole frames); auto: the first that fits.',
  weightsStream:
    "on: the model weights stay in this computer's memory and are sent to the GPU a few layers at a time as they are needed (exact, less GPU memory, slower). auto: on only when nothing fits the budget without it.",
  budget: 'The most GPU memory this decode may use: the page picks tiles and the other levers on auto so the decode fits (the levers you set yourself are kept and checked).',
};
