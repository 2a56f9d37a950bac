// The demo's sample picker (issue 12): the trained default model (models/) and its shipped samples. Picking
// one loads the trained decoder and the sample's latents through the page's own URL loaders (so recipes and
// links keep working), and shows the sample's source clip beside the decode, frame for frame, with the
// PSNR of its PyTorch decode against that clip.
import { MODEL_DECODER_FILE, MODEL_NAME, SAMPLES, defaultSample, parseU8Npy, type SampleInfo } from '../model/samples';
import type { SourceClip } from './compare';

// every models/ file the page may fetch, as URLs Vite serves in dev and copies into the build
const FILES = import.meta.glob(['../../models/wan21-d32-decoder.safetensors', '../../models/samples/*.latents.npy', '../../models/samples/*.source.npy'], {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/** The URL of a models/ file (e.g. 'samples/rocket-64.latents.npy'). */
export function modelFileUrl(rel: string): string {
  const u = FILES[`../../models/${rel}`];
  if (!u) throw new Error(`models/${rel} is not part of this build`);
  return new URL(u, location.href).href;
}

export interface SamplesHooks {
  /** load decoder weights from a URL (the page's model loader) */
  loadWeightsUrl(url: string): Promise<void>;
  /** load latents from a URL (the page's latents loader) */
  loadLatentsUrl(url: string): Promise<void>;
  /** the URL of the model the page holds now, if it came from one */
  currentWeightsUrl(): string | null;
  /** a sample's source clip is loaded (the page's caption names the sample) */
  onLoaded?(): void;
}

export class SamplesView {
  private readonly select: HTMLSelectElement;
  private readonly info: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly stage: HTMLElement;
  private readonly label: HTMLElement;
  private source: { info: SampleInfo; data: Uint8Array; latentsUrl: string } | null = null;
  private frame = 0;

  constructor(
    root: HTMLElement,
    private readonly hooks: SamplesHooks,
  ) {
    const el = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text = ''): HTMLElementTagNameMap[K] => {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text) e.textContent = text;
      return e;
    };
    const intro = el('p', { class: 'muted' });
    intro.textContent = `${MODEL_NAME}: a Wan2.1-architecture VAE trained for this page (models/README.md). Each sample is a clip the model never saw in training; its latents decode through the same decoder as real Wan weights.`;
    const row = el('div', { class: 'row' });
    const lab = el('label', {}, 'sample ');
    this.select = el('select', { 'data-testid': 'sample-select', 'aria-label': 'sample' });
    for (const s of SAMPLES) {
      const o = el('option', { value: s.name }, `${s.name}: ${s.frames} frames ${s.height}x${s.width}`);
      if (s.default) o.selected = true;
      this.select.append(o);
    }
    lab.append(this.select);
    const load = el('button', { type: 'button', 'data-testid': 'sample-load' }, 'Load sample');
    // the model and latents loaders report their own failures in their cards; what is left (the source clip) here
    load.addEventListener('click', () =>
      this.load(this.select.value).catch((e: unknown) => {
        this.label.textContent = `Could not load the sample: ${e instanceof Error ? e.message : String(e)}`;
      }),
    );
    row.append(lab, load);
    this.info = el('p', { class: 'info', 'data-testid': 'sample-info' });
    this.select.addEventListener('change', () => this.describe());
    // the source clip's stage stays hidden until a sample is loaded (an empty 300 px box read as broken)
    const stage = el('div', { class: 'stage', 'data-testid': 'sample-stage', hidden: '' });
    this.stage = stage;
    this.canvas = el('canvas', { 'data-testid': 'sample-source', width: '64', height: '64', role: 'img', 'aria-label': 'source clip frame (no sample loaded)' });
    stage.append(this.canvas);
    this.label = el('p', { class: 'muted', 'data-testid': 'sample-source-label' }, 'Load a sample to see its source clip beside the decode.');
    root.append(intro, row, this.info, stage, this.label);
    this.describe();
  }

  private describe(): void {
    const s = SAMPLES.find((x) => x.name === this.select.value) ?? defaultSample();
    this.info.textContent = `${s.title}. Held out: ${s.heldOut === 'photograph' ? 'a photograph never seen in training' : 'a camera move never used in training'}. PyTorch decode vs source: ${s.psnrTorch.toFixed(2)} dB PSNR.`;
  }

  /** Load the trained decoder (unless the page holds it already), the sample's latents and its source clip. */
  async load(name: string): Promise<void> {
    const s = SAMPLES.find((x) => x.name === name);
    if (!s) throw new Error(`no sample named ${name}`);
    this.select.value = name;
    this.describe();
    const weights = modelFileUrl(MODEL_DECODER_FILE);
    if (this.hooks.currentWeightsUrl() !== weights) await this.hooks.loadWeightsUrl(weights);
    const latentsUrl = modelFileUrl(`samples/${s.files.latents}`);
    await this.hooks.loadLatentsUrl(latentsUrl);
    const r = await fetch(modelFileUrl(`samples/${s.files.source}`));
    if (!r.ok) throw new Error(`could not fetch the source clip of ${name}: HTTP ${r.status}`);
    const u8 = parseU8Npy(new Uint8Array(await r.arrayBuffer()), `models/samples/${s.files.source}`);
    this.source = { info: s, data: u8.data, latentsUrl };
    this.canvas.width = s.width;
    this.canvas.height = s.height;
    this.stage.hidden = false;
    this.showSource(this.frame);
    this.hooks.onLoaded?.();
  }

  /** The caption's sentence for the loaded sample when `latentsUrl` is its latents, else null. */
  captionFor(latentsUrl: string | null): string | null {
    const src = this.source;
    if (!src || !latentsUrl || latentsUrl !== src.latentsUrl) return null;
    const s = src.info;
    return `sample ${s.name} of the trained default model (${MODEL_NAME}): its source clip is in the Samples card, frame for frame; PyTorch decode vs source ${s.psnrTorch.toFixed(2)} dB PSNR.`;
  }

  /** Load the default sample (the page's start on a hardware adapter). */
  loadDefault(): Promise<void> {
    return this.load(defaultSample().name);
  }

  /** The loaded sample's source clip when `latentsUrl` is its latents (what a decode of them is measured against), else null. */
  sourceFor(latentsUrl: string | null): SourceClip | null {
    const src = this.source;
    if (!src || !latentsUrl || latentsUrl !== src.latentsUrl) return null;
    const { info, data } = src;
    const plane = info.height * info.width;
    return {
      name: info.name,
      frames: info.frames,
      height: info.height,
      width: info.width,
      frame: (i) => {
        const out = new Float32Array(3 * plane);
        for (let c = 0; c < 3; c++) for (let p = 0; p < plane; p++) out[c * plane + p] = data[(c * info.frames + i) * plane + p]! / 127.5 - 1;
        return out;
      },
    };
  }

  /** Draw frame `index` of the loaded source clip (the player calls this as it shows a decoded frame). */
  showSource(index: number): void {
    this.frame = index;
    if (!this.source) return;
    const { info, data } = this.source;
    const i = Math.max(0, Math.min(info.frames - 1, index));
    const plane = info.height * info.width;
    const rgba = new Uint8ClampedArray(plane * 4);
    for (let p = 0; p < plane; p++) {
      rgba[4 * p] = data[(0 * info.frames + i) * plane + p]!;
      rgba[4 * p + 1] = data[(1 * info.frames + i) * plane + p]!;
      rgba[4 * p + 2] = data[(2 * info.frames + i) * plane + p]!;
      rgba[4 * p + 3] = 255;
    }
    this.canvas.getContext('2d')!.putImageData(new ImageData(rgba, info.width, info.height), 0, 0);
    this.canvas.setAttribute('aria-label', `source clip of ${info.name}, frame ${i + 1} of ${info.frames}`);
    this.label.textContent = `source clip of ${info.name}: frame ${i + 1} / ${info.frames} (the original the latents were encoded from)`;
  }
}

/** The picker in `root` (the page's #samples section), or null when the page has none. */
export function mountSamples(root: HTMLElement | null, hooks: SamplesHooks): SamplesView | null {
  return root ? new SamplesView(root, hooks) : null;
}
