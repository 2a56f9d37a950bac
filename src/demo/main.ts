// The demo page: wires the inputs, options, plan, decode, player, charts, compare, export and recipes
// together. Every decode and every file parse runs in the decoder worker (createDecoder); this file only
// holds UI state.
import type { Latents } from '../model/latents';
import { EMBEDDED_DEFAULT_SOURCE } from '../model/default-model';
import { DecoderError } from '../gpu/errors';
import { createDecoder, type DecoderClient } from '../worker/client';
import { CompareView } from './compare-view';
import { runDecode } from './decode-run';
import { byTestId, showText } from './dom';
import { ExportPanel } from './export-panel';
import { resolvePlan, type Resolved } from './fit';
import { formatBytes, formatSeconds, formatShape } from './format';
import { probeGpu, type GpuProbe } from './gpu-probe';
import { renderMemoryChart } from './memory-chart';
import { Messages } from './messages';
import { applyConstraints, initOptions, readOptions, sanitizeOptions, writeOptions } from './options';
import { optionsFormHtml } from './options-form';
import { checkFit, renderPlan, renderPlanError, type Fit } from './plan-view';
import { Player } from './player';
import { Progress, showWeightsRead } from './progress';
import { f32ToBase64, inlineLatents, parseRecipe, recipeForLink, recipeFromHash, recipeToHash, type LatentsRef, type Recipe, type WeightsRef } from './recipe';
import type { DecodeRecord } from './record';
import { acceptDrops, fromFile, fromUrl, preventStrayDrops, weightsInput, type Loaded } from './sources';
import { mountSamples, type SamplesView } from './samples-view';
import { renderTiming } from './timing-view';
import { adapterClass, estimate, estimateFlops, measuredRate, rateKey, rememberRate, type Estimate } from './estimate';
import { inputProblem, statsLine } from './inputs-check';
import { wireReadme } from './readme';
import { clearWeightsCache, forgetBytes, weightsCacheSummary } from './weights-cache';
import { showPlain } from './messages';
import { withCspWatch } from './csp-watch';
import { DownloadInterrupted } from './plain-error';
import { captionFor, type CaptionSubject } from './caption';

// the page's module runs (public/boot.js reports a page that never gets here)
document.documentElement.dataset.app = 'started';

// ---- elements and views ----
const form = byTestId<HTMLFormElement>('options');
// the option rows, generated from the one options schema (options-form.ts), before anything below looks them up
form.innerHTML = optionsFormHtml();
const decodeBtn = byTestId<HTMLButtonElement>('decode');
const cancelBtn = byTestId<HTMLButtonElement>('cancel');
const modelInfo = byTestId('model-info');
const latentsInfo = byTestId('latents-info');
const latentsKey = byTestId<HTMLInputElement>('latents-key');
const planEl = byTestId('plan');
const planWarning = byTestId('plan-warning');
const pinBtn = byTestId<HTMLButtonElement>('compare-pin');
const clearPinBtn = byTestId<HTMLButtonElement>('compare-clear');
const recipeStatus = byTestId('recipe-status');
const fpsInput = byTestId<HTMLInputElement>('fps');
const estimateEl = byTestId('estimate');
const estimateShort = byTestId('estimate-short');
const statsApplied = byTestId('stats-applied');
const statsRadio = (v: string) => form.querySelector<HTMLInputElement>(`input[name="latentStats"][value="${v}"]`)!;

const msg = new Messages(byTestId('status'), byTestId('error'));
const progress = new Progress(byTestId('progress'), byTestId('progress-text'));
const player = new Player({
  canvas: byTestId<HTMLCanvasElement>('frame'),
  play: byTestId<HTMLButtonElement>('play'),
  back: byTestId<HTMLButtonElement>('step-back'),
  forward: byTestId<HTMLButtonElement>('step-forward'),
  scrub: byTestId<HTMLInputElement>('scrub'),
  label: byTestId('frame-label'),
  fps: fpsInput,
});
const compare = new CompareView();
/** the Samples card (trained model), once mounted */
let samplesView: SamplesView | null = null;

// ---- state ----
let gpu: GpuProbe = { available: false, reason: '', description: '', fallback: false, f16: false, maxBinding: 0, limits: { maxStorageBufferBindingSize: 0, maxBufferSize: 0 } };
let client: DecoderClient | null = null;
let weightsRef: WeightsRef = { kind: 'default' };
let latents: Latents | null = null;
let latentsRef: LatentsRef = { kind: 'default' };
let latentsName = 'default';
/** a copy of the last latents file, to parse again when the tensor name changes (latent files are small) */
let latentsFile: { bytes: Uint8Array; name: string; ref: LatentsRef } | null = null;
/** the options as planned (fitPlan's choice with a budget or a lever on auto); null when planning failed */
let resolved: Resolved | null = null;
/** why the options cannot be decoded (no plan fits, a bad field, the planner refused), '' when they can */
let blocked = '';
/** the latest replan, awaited by a decode so it runs what the page shows */
let replanning: Promise<void> = Promise.resolve();
let fit: Fit = { fits: true, warning: '' };
let running = false;
/** a Decode click is waiting for the latest replan */
let starting = false;
let cancelRequested = false;
/** the user was warned that this decode will not fit; the next click decodes anyway */
let warnedOversize = false;
let current: DecodeRecord | null = null;
let decodes = 0;
let loading = 0;

const exportPanel = new ExportPanel({
  record: () => current,
  shown: () => player.index,
  fps: () => player.fps,
  baseName: () => `wan-vae-${decodes}`,
  onError: (what, e) => msg.error(what, e),
});

function refreshButtons(): void {
  const ready = !!client && !!latents && loading === 0;
  decodeBtn.disabled = running || !ready || blocked !== '';
  decodeBtn.title = blocked ? `nothing to decode: ${blocked}` : '';
  decodeBtn.textContent = warnedOversize ? 'Decode anyway' : 'Decode';
  // both backends stop between chunks (the CPU reference yields to the worker's event loop after each)
  cancelBtn.disabled = !running;
  cancelBtn.title = 'stop the decode (within one chunk)';
  exportPanel.enable(!running && !!current && current.store.count > 0);
  pinBtn.disabled = running || !current || current.store.count === 0 || compare.pinned === current;
  clearPinBtn.disabled = !compare.pinned;
}

/** Run a loading step (model, latents, recipe) with the decode button held off meanwhile. */
async function whileLoading<T>(what: string, job: () => Promise<T>): Promise<T | undefined> {
  if (running) {
    msg.error(what, new Error('a decode is running: wait for it or cancel it first'));
    return undefined;
  }
  loading++;
  refreshButtons();
  msg.status(`${what}…`, 'loading');
  try {
    const r = await job();
    msg.status('ready', 'idle');
    return r;
  } catch (e) {
    msg.error(what, e);
    msg.status(`${what} failed`, 'error');
    return undefined;
  } finally {
    loading--;
    refreshButtons();
  }
}

// ---- model ----
function showModel(): void {
  if (!client) return;
  const m = client.model;
  modelInfo.className = 'info';
  modelInfo.dataset.state = 'ok';
  modelInfo.textContent = `Wan${m.version} · dim ${m.dim} · z ${m.zDim} · ×${m.scale} spatial · ${(m.params / 1e6).toFixed(2)} M params · ${m.source === EMBEDDED_DEFAULT_SOURCE ? 'generated, random weights' : m.source}`; // the radio says "Generated" too
}

/** What is loaded now, for the caption (and kept with a decode of it). */
function subjectNow(decoded: boolean): CaptionSubject | null {
  if (!client) return null;
  const src = client.model.source;
  return {
    generated: src === EMBEDDED_DEFAULT_SOURCE,
    model: src,
    latents: latentsName,
    sample: samplesView?.captionFor(latentsRef.kind === 'url' ? latentsRef.url : null) ?? null,
    decoded,
  };
}

/** The caption under the player: the decode on screen, else what is loaded (captionFor, caption.ts). */
function updateCaption(): void {
  const s = current?.subject ?? subjectNow(false);
  if (!s) return;
  const c = captionFor(s);
  const el = byTestId('caption');
  el.querySelector<HTMLElement>('[data-part="what"]')!.textContent = c.what;
  el.querySelector<HTMLElement>('[data-part="hint"]')!.hidden = !c.hint;
}

/** The model card's source radio as what is loaded (a failed load leaves no radio naming a model that is not there). */
function showWeightsSource(): void {
  selectSource(byTestId('model-card'), 'weights-src', weightsRef.kind);
}

/** The weights cache line: what Cache Storage holds (`lead` first), or the default sentence when it holds nothing. */
async function showCacheLine(lead = ''): Promise<void> {
  const summary = await weightsCacheSummary().catch(() => '');
  byTestId('weights-cache').textContent = [lead, summary || 'Downloads are kept in this browser (Cache Storage) so a reload does not download again.'].filter(Boolean).join(' ');
}

/**
 * Load a model: `source` gives the bytes (null: the generated default), `label` names it in messages. On
 * any failure (download, not a safetensors file, not a decoder) the page keeps the model it had, and the
 * card, the radio, the cache line and Cache Storage say so: rejected weights are not kept.
 */
async function loadModelFrom(source: Promise<Loaded | null>, refOf: (l: Loaded | null) => WeightsRef, label: string): Promise<void> {
  let loaded: Loaded | null = null;
  await whileLoading(label === GENERATED ? `Loading ${label}` : `Loading model ${label}`, async () => {
    try {
      loaded = await source;
      const next = await createDecoder(weightsInput(loaded), loaded?.name ?? EMBEDDED_DEFAULT_SOURCE, { onWeights: showWeightsRead(byTestId('weights-read')) });
      client?.dispose();
      client = next;
      weightsRef = refOf(loaded);
      showModel();
      msg.clearError();
    } catch (e) {
      const l = loaded as Loaded | null;
      const kept = !!l?.url && (l.stored || l.cached);
      if (kept) await forgetBytes(l.url!).catch(() => undefined);
      modelInfo.className = 'info bad';
      modelInfo.dataset.state = 'bad';
      showPlain(modelInfo, `Could not load ${label}: `, e, client ? ` Still using ${client.model.source === EMBEDDED_DEFAULT_SOURCE ? 'the generated model' : client.model.source}.` : '');
      byTestId<HTMLInputElement>('weights-file').value = '';
      showWeightsSource();
      if (l?.url || byTestId('weights-cache').textContent?.startsWith('downloading')) await showCacheLine(kept ? `${label} was not kept in this browser's cache.` : '');
      throw e;
    }
  });
  if (client && !latents) await useDefaultLatents();
  updateCaption();
  await replan();
}

const GENERATED = 'the generated model';

function loadDefaultModel(): Promise<void> {
  return loadModelFrom(Promise.resolve(null), () => ({ kind: 'default' }), GENERATED);
}

/** The file name a URL names (for messages before its download started). */
function urlName(url: string): string {
  try {
    const u = new URL(url, location.href);
    // an address the page cannot fetch (a Windows path, a mistyped scheme) is named as typed
    return /^https?:$/.test(u.protocol) ? decodeURIComponent(u.pathname.split('/').pop() || url) : url;
  } catch {
    return url;
  }
}

/**
 * A URL's bytes with a CSP refusal told from a network failure (csp-watch.ts) and a download that stopped
 * part-way as such; `onProgress` sees the received bytes.
 */
async function urlBytes(url: string, onProgress: ((n: number, total: number | null) => void) | undefined, o: { cache?: boolean }): Promise<Loaded> {
  let received = 0,
    total: number | null = null;
  try {
    return await withCspWatch(url, () =>
      fromUrl(
        url,
        (n, t) => {
          received = n;
          total = t;
          onProgress?.(n, t);
        },
        o,
      ),
    );
  } catch (e) {
    if (received > 0 && !(e instanceof DecoderError) && (total === null || received < total)) throw new DownloadInterrupted(url, received, total, e);
    throw e;
  }
}

/** Weights from a URL through the browser's Cache Storage: progress while downloading, none when cached. */
async function weightsFromUrl(url: string): Promise<Loaded> {
  const cacheEl = byTestId('weights-cache');
  const r = await urlBytes(
    url,
    (n, t) => {
      const text = `downloading model ${formatBytes(n)}${t ? ` of ${formatBytes(t)} (${Math.floor((100 * n) / t)}%)` : ''}`;
      msg.status(text, 'loading');
      cacheEl.textContent = text;
    },
    { cache: true },
  );
  cacheEl.textContent = r.cached
    ? `${r.name}: from this browser's cache (no download).`
    : r.remote
      ? `${r.name}: not downloaded here (could not be cached: ${r.cacheError ?? 'no Cache Storage'}); the decoder reads it from the server by ranges.`
      : `${r.name}: downloaded ${formatBytes(r.size ?? r.bytes.byteLength)} and kept in this browser's cache.`;
  return r;
}

// ---- latents ----
function showLatents(): void {
  if (!latents) return;
  latentsInfo.className = 'info';
  latentsInfo.dataset.state = 'ok';
  const mib = formatBytes(latents.data.byteLength);
  const kind = latents.format === 'comfyui-latent' ? ' · ComfyUI latent' : '';
  latentsInfo.textContent = `${latentsName}: ${formatShape(latents.shape)} (z, T, h, w) · ${mib}${kind}${latents.stats ? ' · with @mean/@std' : ''}`;
}

/** The latents card after a failed read: the reason in the card, the picker and radio back to what is in use. */
function latentsFailed(name: string, e: unknown): void {
  latentsInfo.className = 'info bad';
  latentsInfo.dataset.state = 'bad';
  showPlain(latentsInfo, `Could not read ${name}: `, e, latents ? ` Still using ${latentsName === 'default' ? 'the generated latents' : latentsName}.` : '');
  byTestId<HTMLInputElement>('latents-file').value = '';
  if (latents) selectSource(byTestId('latents-card'), 'latents-src', latentsRef.kind === 'default' ? 'default' : latentsRef.kind === 'url' ? 'url' : 'file');
}

async function setLatents(bytes: Uint8Array | null, name: string, ref: LatentsRef): Promise<void> {
  if (!client) return;
  const c = client;
  const key = latentsKey.value.trim() || undefined;
  const copy = bytes ? { bytes: bytes.slice(), name, ref } : null;
  const parsed = await whileLoading(`Reading latents ${name}`, async () => {
    try {
      return await c.latents(bytes, name, key);
    } catch (e) {
      latentsFailed(name, e);
      throw e;
    }
  });
  if (!parsed) return;
  latents = parsed;
  latentsFile = copy;
  // statistics stored with the latents are chosen by themselves; without them 'from file' is off
  statsRadio('file').disabled = !parsed.stats;
  if (parsed.stats) statsRadio('file').checked = true;
  else if (statsRadio('file').checked) statsRadio('official').checked = true;
  latentsRef = ref.kind === 'file' || ref.kind === 'url' ? { ...ref, ...(key ? { key } : {}) } : ref;
  latentsName = name;
  msg.clearError();
  showLatents();
  updateCaption();
  await replan();
}

async function useDefaultLatents(): Promise<void> {
  await setLatents(null, 'default', { kind: 'default' });
}

async function latentsFrom(source: Promise<Loaded>, refOf: (l: Loaded) => LatentsRef, label: string): Promise<void> {
  const loaded = await whileLoading(`Reading latents ${label}`, () =>
    source.catch((e: unknown) => {
      latentsFailed(label, e);
      throw e;
    }),
  );
  if (loaded) await setLatents(loaded.bytes, loaded.name, refOf(loaded));
}

// ---- options and plan ----
let planSeq = 0;
/** the arithmetic of the decode as planned (estimate.ts), kept to measure this device's rate after it */
let planFlops = 0;

function replan(): Promise<void> {
  replanning = planOptions();
  return replanning;
}

/** What the page says when options cannot be planned: fitPlan's 'limits' message ("no plan fits ...") and option problems as they are. */
function refusal(e: unknown): string {
  if (e instanceof DecoderError && e.code === 'limits') return `${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`;
  if (e instanceof DecoderError) return `The planner refused these options: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Hold Decode off with a reason ('' lets it go); the status line says so when that changes. */
function setBlocked(why: string): void {
  const was = blocked;
  blocked = why;
  if (running || !why === !was) return;
  msg.status(why ? 'these options cannot be decoded: see the predicted GPU memory' : 'ready', 'idle');
}

async function planOptions(): Promise<void> {
  const opts = applyConstraints(form, { webgpu: gpu.available, f16: gpu.f16, version: client?.model.version ?? null });
  warnedOversize = false;
  refreshButtons();
  if (!client || !latents) return;
  const seq = ++planSeq;
  // the inputs first: a latent channel count or statistics this model cannot take block the plan
  const problem = inputProblem(client.model, latents, latentsName, opts.latentStats);
  statsApplied.textContent = problem ? '' : statsLine(latents, latentsName, opts.latentStats);
  if (problem) {
    resolved = null;
    setBlocked(problem);
    fit = { fits: true, warning: '' };
    renderPlanError(planEl, problem);
    planEl.dataset.state = 'refused';
    latentsInfo.className = 'info bad';
    latentsInfo.dataset.state = 'bad';
    latentsInfo.textContent = problem;
    showText(planWarning, '');
    showEstimate(null);
    refreshButtons();
    return;
  }
  showLatents();
  planEl.dataset.state = 'planning';
  try {
    const r = await resolvePlan(client, latents.shape, opts, gpu);
    if (seq !== planSeq) return;
    resolved = r;
    setBlocked('');
    fit = checkFit(r.plan, gpu, opts.backend);
    renderPlan(planEl, r.plan, gpu, opts.backend, fit, r.reason);
    planEl.dataset.state = 'ready';
    showText(planWarning, fit.warning);
    planFlops = estimateFlops(client.model, latents.shape, r.worker);
    showEstimate(estimate(planFlops, adapterClass(gpu, opts.backend), measuredRate(rateKey(gpu.description, opts.backend, r.worker.precision ?? 'f32'))));
  } catch (e) {
    if (seq !== planSeq) return;
    resolved = null;
    setBlocked(refusal(e));
    fit = { fits: true, warning: '' };
    renderPlanError(planEl, blocked);
    planEl.dataset.state = 'refused';
    showText(planWarning, '');
    showEstimate(null);
  }
  refreshButtons();
}

const CLASS_NAME: Record<Estimate['cls'], string> = {
  software: 'a software adapter (WebGPU on the CPU)',
  integrated: 'an integrated GPU',
  discrete: 'a discrete GPU',
  'cpu-reference': 'the CPU reference decoder',
};

/** The time estimate under the plan and beside Decode (null: none, the plan failed). */
function showEstimate(e: Estimate | null): void {
  for (const el of [estimateEl, estimateShort]) {
    el.dataset.warn = String(!!e?.warn);
    el.textContent = '';
  }
  if (!e) return;
  const range = `${formatSeconds(e.seconds[0])} – ${formatSeconds(e.seconds[1])}`;
  const gflop = (e.flops / 1e9).toFixed(e.flops < 1e10 ? 1 : 0);
  estimateEl.textContent =
    (e.measured
      ? `Estimated time: ${range} (${gflop} GFLOP at the ${e.measured.toPrecision(3)} GFLOP/s the last decode reached on this device).`
      : `Estimated time: ${range} (${gflop} GFLOP on ${CLASS_NAME[e.cls]}; a rough range from other machines: the first decode here measures this device and narrows it).`) +
    (e.warn ? ` This is long: ${e.cls === 'software' ? 'this adapter runs on the CPU, so ' : ''}smaller latents (fewer frames, smaller h×w) decode much faster.` : '');
  estimateShort.textContent = `${e.warn ? '⚠ ' : ''}Estimated ${range} ${e.measured ? 'on this device (measured)' : `on ${CLASS_NAME[e.cls]}`}`;
}

// ---- decode ----
async function decode(): Promise<void> {
  if (!client || !latents || running || starting) return;
  starting = true;
  try {
    await replanning;
  } finally {
    starting = false;
  }
  if (!resolved || blocked || running) return;
  const plan = resolved;
  const flops = planFlops;
  const opts = readOptions(form);
  if (!fit.fits && !warnedOversize) {
    warnedOversize = true;
    msg.status('This decode will not fit the adapter (see the warning): click "Decode anyway" to try', 'idle');
    refreshButtons();
    return;
  }
  warnedOversize = false;
  running = true;
  cancelRequested = false;
  msg.clearError();
  refreshButtons();
  msg.status(opts.backend === 'cpu' ? 'decoding on the cpu reference…' : 'decoding…', 'running');
  const n = ++decodes;
  const run = opts.latentStats === 'file' && latents.stats ? { ...plan, worker: { ...plan.worker, latentStats: latents.stats } } : plan;
  const { record, error } = await runDecode(client, latents, opts, run, `#${n}`, {
    onStart: (store) => {
      progress.start(store.total);
      player.startLive(store);
    },
    onFrame: (f, store) => {
      player.live(f.index);
      progress.frame(store.count);
    },
  });
  running = false;
  const done = record.store.count;
  if (!error) {
    progress.end(done, `done in ${formatSeconds(record.seconds)}`);
    // this device's rate: the next estimates come from it (the whole decode, shader compiles included)
    rememberRate(rateKey(gpu.description, opts.backend, run.worker.precision ?? 'f32'), flops, record.seconds);
    void replan();
    const late = cancelRequested ? ' (cancel came after the last chunk had started)' : '';
    msg.status(`done · ${done} frames of ${record.store.width}×${record.store.height} in ${formatSeconds(record.seconds)}${late}`, 'done');
  } else if (cancelRequested) {
    progress.end(done, 'cancelled');
    msg.status(`cancelled after ${done} of ${record.store.total} frames`, 'cancelled');
  } else {
    progress.end(done, 'failed');
    msg.error('Decode', error);
    msg.status('decode failed (see the message above)', 'error');
  }
  if (done > 0) {
    record.subject = subjectNow(true) ?? undefined;
    current = record;
    updateCaption();
    player.finish();
    // a decode of a trained-model sample's latents is also measured against that sample's source clip
    const src = samplesView?.sourceFor(latentsRef.kind === 'url' ? latentsRef.url : null);
    if (src) compare.tagSource(record, src);
    compare.setB(record);
    showFigures(record);
  }
  refreshButtons();
}

function showFigures(r: DecodeRecord): void {
  renderMemoryChart(
    byTestId('memory-chart'),
    { planned: r.planned, measured: r.measured, peak: r.peak },
    r.backend === 'cpu' ? 'The cpu backend uses no GPU memory.' : 'No measured memory (the decode did not finish).',
  );
  renderTiming(byTestId('timing'), {
    seconds: r.seconds,
    frames: r.store.count,
    adapter: r.adapter || gpu.description,
    backend: r.backend,
    arrivals: r.store.arrivals(),
  });
}

// ---- recipes ----
function currentRecipe(forLink: boolean): Recipe {
  let l: LatentsRef = { kind: 'default' };
  if (latentsRef.kind === 'url' && forLink) l = latentsRef;
  else if (latentsRef.kind !== 'default' && latents) l = { kind: 'inline', name: latentsName, shape: latents.shape, f32: f32ToBase64(latents.data) };
  return { app: 'wan-vae-webgpu demo', version: 1, weights: weightsRef, latents: l, options: sanitizeOptions(readOptions(form)), fps: player.fps };
}

async function applyRecipe(r: Recipe, from: string): Promise<void> {
  const notes: string[] = [];
  writeOptions(form, r.options);
  fpsInput.value = String(r.fps);
  if (r.weights.kind === 'url') {
    const url = r.weights.url;
    selectSource(byTestId('model-card'), 'weights-src', 'url');
    byTestId<HTMLInputElement>('weights-url').value = url;
    await loadModelFrom(weightsFromUrl(url), () => ({ kind: 'url', url }), urlName(url));
  } else if (r.weights.kind === 'default' && weightsRef.kind !== 'default') await loadDefaultModel();
  else if (r.weights.kind === 'file') notes.push(`it used the weights file "${r.weights.name}": open that file in step 1`);
  const l = r.latents;
  if (l.kind === 'inline') {
    selectSource(byTestId('latents-card'), 'latents-src', 'file');
    latents = inlineLatents(l);
    latentsFile = null;
    latentsRef = { kind: 'file', name: l.name };
    latentsName = l.name;
    showLatents();
  } else if (l.kind === 'url') {
    selectSource(byTestId('latents-card'), 'latents-src', 'url');
    byTestId<HTMLInputElement>('latents-url').value = l.url;
    latentsKey.value = l.key ?? '';
    await latentsFrom(urlBytes(l.url, undefined, {}), () => ({ kind: 'url', url: l.url }), urlName(l.url));
  } else if (l.kind === 'default') {
    if (latentsRef.kind !== 'default') await useDefaultLatents();
  } else notes.push(`its latents "${l.name}" were too large for a link: open the file in step 2, or use the saved .json`);
  await replan();
  recipeStatus.textContent = `Recipe from ${from} applied${notes.length ? `; ${notes.join('; ')}` : ': press Decode to reproduce'}.`;
}

// ---- events ----
function wireSourceRadios(card: HTMLElement, name: string, onDefault: () => void): void {
  for (const r of card.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`))
    r.addEventListener('change', () => {
      for (const row of card.querySelectorAll<HTMLElement>('.src-row')) row.hidden = row.dataset.src !== r.value;
      if (r.value === 'default') onDefault();
    });
}

type FileOrUrlRef = { kind: 'file'; name: string } | { kind: 'url'; url: string };

/**
 * A source card's file picker, URL field and drops (test ids `<id>-file`, `<id>-url`, `<id>-url-load`,
 * radios `<id>-src`): each hands its bytes to `load` with the reference a recipe keeps.
 */
function wireSourceInputs(
  card: HTMLElement,
  id: 'weights' | 'latents',
  urlSource: (url: string) => Promise<Loaded>,
  load: (src: Promise<Loaded>, refOf: (l: Loaded) => FileOrUrlRef, label: string) => Promise<void>,
): void {
  const fileRef = (l: Loaded): FileOrUrlRef => ({ kind: 'file', name: l.name });
  byTestId<HTMLInputElement>(`${id}-file`).addEventListener('change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) void load(fromFile(f), fileRef, f.name);
  });
  byTestId(`${id}-url-load`).addEventListener('click', () => {
    const url = byTestId<HTMLInputElement>(`${id}-url`).value.trim();
    if (url) void load(urlSource(url), (l) => ({ kind: 'url', url: l.url! }), urlName(url));
  });
  acceptDrops(card, (f) => {
    selectSource(card, `${id}-src`, 'file');
    void load(fromFile(f), fileRef, f.name);
  });
}

function selectSource(card: HTMLElement, name: string, value: string): void {
  const r = card.querySelector<HTMLInputElement>(`input[name="${name}"][value="${value}"]`)!;
  r.checked = true;
  for (const row of card.querySelectorAll<HTMLElement>('.src-row')) row.hidden = row.dataset.src !== value;
}

function wireEvents(): void {
  const modelCard = byTestId('model-card'),
    latentsCard = byTestId('latents-card');
  preventStrayDrops();
  wireSourceRadios(modelCard, 'weights-src', () => {
    if (weightsRef.kind !== 'default') void loadDefaultModel();
  });
  wireSourceRadios(latentsCard, 'latents-src', () => {
    if (latentsRef.kind !== 'default') void useDefaultLatents();
  });
  wireSourceInputs(modelCard, 'weights', weightsFromUrl, (src, refOf, label) => loadModelFrom(src, (l) => refOf(l!), label));
  wireSourceInputs(latentsCard, 'latents', (url) => urlBytes(url, undefined, {}), latentsFrom);
  latentsKey.addEventListener('change', () => {
    if (latentsFile) void setLatents(latentsFile.bytes.slice(), latentsFile.name, latentsFile.ref);
  });

  form.addEventListener('change', () => void replan());
  // number fields replan as they are typed in (their change event waits for blur or enter)
  for (const el of form.querySelectorAll<HTMLInputElement>('input[type="number"]')) el.addEventListener('input', () => void replan());
  decodeBtn.addEventListener('click', () => void decode());
  cancelBtn.addEventListener('click', () => {
    if (!running || !client) return;
    cancelRequested = true;
    msg.status('cancelling (within one chunk)…', 'running');
    void client.cancel();
  });
  pinBtn.addEventListener('click', () => {
    compare.setA(current);
    refreshButtons();
  });
  clearPinBtn.addEventListener('click', () => {
    compare.setA(null);
    refreshButtons();
  });

  byTestId('save-json').addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(currentRecipe(false), null, 1)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `wan-vae-recipe.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    recipeStatus.textContent = 'Saved wan-vae-recipe.json (options, latents inline, weights source).';
  });
  byTestId('open-json-button').addEventListener('click', () => byTestId<HTMLInputElement>('open-json').click());
  wireReadme(byTestId<HTMLDialogElement>('readme'), byTestId('readme-body'), byTestId('readme-close'));
  byTestId('weights-cache-clear').addEventListener('click', async () => {
    const cacheEl = byTestId('weights-cache');
    cacheEl.textContent = await clearWeightsCache();
  });
  void weightsCacheSummary().then((t) => t && (byTestId('weights-cache').textContent = t));
  byTestId<HTMLInputElement>('open-json').addEventListener('change', async (e) => {
    const input = e.target as HTMLInputElement;
    const f = input.files?.[0];
    input.value = '';
    if (!f) return;
    try {
      await applyRecipe(parseRecipe(JSON.parse(await f.text())), f.name);
    } catch (err) {
      msg.error(`Recipe ${f.name}`, err);
    }
  });
  byTestId('copy-link').addEventListener('click', async () => {
    const { recipe, dropped } = recipeForLink(currentRecipe(true));
    history.replaceState(null, '', recipeToHash(recipe));
    let copied = false;
    try {
      await navigator.clipboard.writeText(location.href);
      copied = true;
    } catch {
      // no clipboard permission (or an insecure context): the link is still in the address bar
    }
    recipeStatus.textContent =
      `${copied ? 'Link copied' : 'Link is in the address bar'}` + (dropped ? ': the latents are too large for a link, so it names them only; save the .json to keep them.' : '.');
  });
}

// ---- start ----
async function start(): Promise<void> {
  // links to the samples section only when the page has one (id="samples")
  for (const el of document.querySelectorAll<HTMLElement>('[data-needs="samples"]')) el.hidden = !document.getElementById('samples');
  initOptions(form);
  wireEvents();
  msg.status('probing WebGPU…', 'loading');
  gpu = await probeGpu();
  const adapterEl = byTestId('adapter');
  adapterEl.textContent = gpu.available ? `${gpu.description}${gpu.fallback ? ' · software fallback' : ''}${gpu.f16 ? ' · shader-f16' : ''}` : 'no WebGPU';
  adapterEl.title = gpu.available ? `largest binding ${formatBytes(gpu.maxBinding)}` : gpu.reason;
  showText(byTestId('gpu-banner'), gpu.available ? '' : `WebGPU is not available: ${gpu.reason} The cpu backend still decodes (slowly) in the worker.`);
  let recipe: Recipe | null = null;
  try {
    recipe = recipeFromHash(location.hash);
  } catch (e) {
    msg.error('The link holds a recipe this page cannot read', e);
  }
  if (recipe) writeOptions(form, recipe.options);
  // the trained model's samples (#samples): picked through the page's URL loaders, source clip beside the decode
  const samples = (samplesView = mountSamples(document.getElementById('samples'), {
    // the Model / Latents cards then say what is loaded: "URL", with the models/ file's URL in the field
    loadWeightsUrl: async (url) => {
      selectSource(byTestId('model-card'), 'weights-src', 'url');
      byTestId<HTMLInputElement>('weights-url').value = url;
      await loadModelFrom(weightsFromUrl(url), () => ({ kind: 'url', url }), urlName(url));
    },
    loadLatentsUrl: async (url) => {
      selectSource(byTestId('latents-card'), 'latents-src', 'url');
      byTestId<HTMLInputElement>('latents-url').value = url;
      await latentsFrom(urlBytes(url, undefined, {}), (l) => ({ kind: 'url', url: l.url! }), urlName(url));
    },
    currentWeightsUrl: () => (weightsRef.kind === 'url' ? weightsRef.url : null),
    onLoaded: updateCaption,
  }));
  if (samples) {
    const shown = player.onShow;
    player.onShow = (i) => {
      shown(i);
      samples.showSource(i);
    };
  }
  // a hardware adapter starts on the trained model's default sample; a software one (SwiftShader, ~1 GFLOP/s)
  // on the generated dim-16 model, which decodes in seconds there
  const trained =
    !!samples &&
    gpu.available &&
    !gpu.fallback &&
    !recipe &&
    (await samples.loadDefault().then(
      () => true,
      () => false,
    ));
  if (!trained || !client) await loadDefaultModel();
  if (recipe) await applyRecipe(recipe, 'the link');
  document.documentElement.dataset.app = 'ready';
}

start().catch((e: unknown) => {
  // a start that threw (not a failed load: those are reported where they happen): say so, never hang on "loading…"
  msg.error('The page could not start', e);
  msg.status('the page could not start (see the message above)', 'error');
  for (const el of [modelInfo, latentsInfo]) if (/^loading/.test(el.textContent ?? '')) el.textContent = 'not loaded: the page could not start';
});
