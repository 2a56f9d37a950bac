// One finished (or cancelled) decode as the page keeps it: frames, options and the figures the memory
// chart, timing summary, compare view and recipes read.
import type { DemoOptions } from './options';
import type { FrameStore } from './frames';
import type { CaptionSubject } from './caption';

export interface DecodeRecord {
  /** short name for the compare view, e.g. "#2 cache on · f32 · webgpu" */
  label: string;
  options: DemoOptions;
  store: FrameStore;
  seconds: number;
  adapter: string;
  backend: 'webgpu' | 'cpu';
  /** latent shape decoded */
  shape: [number, number, number, number];
  planned: Record<string, number> | null;
  measured: Record<string, number> | null;
  peak?: number;
  /** false when cancelled or failed part-way */
  complete: boolean;
  /** the model and latents decoded (the caption under the player names them while these frames are shown) */
  subject?: CaptionSubject;
}
