// One planning path for `wan-vae decode` and `wan-vae plan`, so the dry run shows what the decode will
// do: the adapter view (limits, shader-f16, tensor cores), the levers from the flags (cli-options.ts
// fitOptions) and fitPlan. `decode` takes the view from its device; `plan` from the adapter this machine
// has (Dawn), or an assumed one (--adapter h200|default, --limit-binding), and says which.
import { DecoderError } from '../gpu/errors';
import { requestDecoderDevice } from '../gpu/device';
import type { DecoderConfig } from '../model/config';
import { fitPlan, type Fit, type FitRequest } from '../plan/auto';
import type { ExpectedTime } from '../plan/expected-time';
import type { Plan } from '../plan/planner';
import { convWeightBytes, weightBuffers } from '../plan/step-kinds';
import { convWeightFormat } from '../model/quantize';
import { cliValue, fitOptions, type Args } from './cli-options';
import { installNodeWebGPU } from './install-webgpu';

/** What the planner is told about the GPU. */
export interface AdapterView {
  /** how the CLI names it: the adapter's description, or the assumption */
  name: string;
  limits: FitRequest['limits'];
  f16: boolean;
  tensorCores: boolean;
  /** null: the adapter found; else the line saying what was assumed and how to change it */
  assumed: string | null;
  /** the expected-time model was fitted on this adapter (an H200) */
  calibrated: boolean;
}

export const ADAPTERS = ['found', 'h200', 'default'] as const;
export type AdapterChoice = (typeof ADAPTERS)[number];

const MiB = 2 ** 20;
/** An NVIDIA H200 through Dawn with allow_unsafe_apis (shared gpu/README.md): where the expected times were fitted. */
const H200: Omit<AdapterView, 'assumed'> = {
  name: 'an NVIDIA H200 (Dawn)',
  limits: { maxStorageBufferBindingSize: 2 ** 31 - 4, maxBufferSize: 2 ** 40 },
  f16: true,
  tensorCores: true,
  calibrated: true,
};
/** WebGPU's default limits (what a device gets without asking for more), no optional features. */
const DEFAULT: Omit<AdapterView, 'assumed'> = {
  name: "WebGPU's default limits",
  limits: { maxStorageBufferBindingSize: 128 * MiB, maxBufferSize: 256 * MiB },
  f16: false,
  tensorCores: false,
  calibrated: false,
};

const isH200 = (description: string) => /h200/i.test(description);

/** The adapter `plan` plans for: --adapter (found by default), --limit-binding over its binding limit. */
export async function planAdapter(a: Args, choice: AdapterChoice, dawnFlags: string[]): Promise<AdapterView> {
  let view: AdapterView;
  if (choice === 'h200') view = { ...H200, assumed: 'assumed: an NVIDIA H200 through Dawn (bindings of 2 GiB, shader-f16, tensor cores) as asked by --adapter h200' };
  else if (choice === 'default')
    view = { ...DEFAULT, assumed: "assumed: WebGPU's default limits (bindings of 128 MiB, buffers of 256 MiB), no shader-f16, no tensor cores, as asked by --adapter default" };
  else {
    try {
      await installNodeWebGPU(dawnFlags);
      const d = await requestDecoderDevice();
      const l = d.device.limits;
      const name = d.info.description || [d.info.vendor, d.info.architecture].filter(Boolean).join(' ') || 'the WebGPU adapter';
      view = {
        name,
        limits: { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize },
        f16: d.f16,
        tensorCores: !!d.mma,
        assumed: null,
        calibrated: isH200(name) && !!d.mma,
      };
      d.device.destroy();
    } catch (e) {
      if (!(e instanceof DecoderError) || e.code !== 'no-webgpu') throw e;
      view = {
        ...DEFAULT,
        assumed: `assumed: WebGPU's default limits (bindings of 128 MiB), no shader-f16, no tensor cores: no adapter here (${e.message.split(':')[0]}); --adapter h200 plans for an H200, --limit-binding MiB sets the binding limit`,
      };
    }
  }
  if (a['limit-binding'] !== undefined) {
    const bind = Number(a['limit-binding']) * MiB;
    if (!(bind > 0)) throw new DecoderError('bad-input', `--limit-binding must be a positive number of MiB, got '${String(a['limit-binding'])}'`);
    view = {
      ...view,
      limits: { maxStorageBufferBindingSize: bind, maxBufferSize: Math.max(view.limits.maxBufferSize, bind) },
      assumed: `${view.assumed ? `${view.assumed}; ` : `${view.name}, `}bindings of at most ${a['limit-binding']} MiB (--limit-binding)`,
    };
  }
  return view;
}

/** The decode's plan for latents [z, T, h, w] on `adapter`, from the lever flags in `a`. */
export function planFor(cfg: DecoderConfig, latent: { frames: number; h: number; w: number }, a: Args, adapter: AdapterView): { fit: Fit; cache: 'on' | 'off'; tensorCores: boolean } {
  const { cache, req } = fitOptions(a, adapter.limits);
  if (!adapter.f16) req.precisions = req.precisions.filter((p) => p === 'f32');
  if (!req.precisions.length)
    throw new DecoderError(
      'unsupported',
      `--precision f16 needs the WebGPU feature 'shader-f16', which ${adapter.assumed ? 'the assumed adapter' : 'this adapter'} does not offer${adapter.assumed === null ? '' : ' (plan: --adapter h200 assumes one that does)'}`,
    );
  // tensor cores where the adapter has them and the flag allows (f16 plans then count their operand copy)
  const tensorCores = cliValue(a, 'tensorCores') && adapter.tensorCores;
  const fit = fitPlan(cfg, { ...latent, cache, tensorCores, conv: cliValue(a, 'conv') }, req);
  return { fit, cache, tensorCores };
}

/** One GPU owner of the conv weights and the other weights: bytes and what it is. */
export interface WeightOwner {
  owner: 'conv' | 'winograd' | 'other';
  bytes: number;
  /** how many weight tensors */
  count: number;
  text: string;
}

/**
 * memory.weights by owner (resident weights only: streamed weights are one ring): the conv weights in
 * their storage, the Winograd-transformed copies (U = G g G^T, replacing the 3x3 weights of the convs
 * that run as Winograd, 16/9x or 4x their bytes) and the biases and norm scales. Sums to memory.weights.
 */
export function weightOwners(p: Plan): WeightOwner[] | null {
  if (p.weightStream) return null;
  const steps = Object.values(p.programs).flatMap((pps) => pps!.flatMap((pp) => pp.prog.steps));
  const wFormat = convWeightFormat(p.opts.precision, p.opts.weightsPrecision);
  const tc = !!p.opts.tensorCores && p.opts.precision === 'f16';
  const acc = { conv: { bytes: 0, count: 0 }, winograd: { bytes: 0, count: 0 }, other: { bytes: 0, count: 0 } };
  let replaced = 0; // f32 bytes of the 3x3 weights the Winograd copies stand in for
  let rows = 0; // Winograd convs with U made per call (conv-form.ts WinoPlan.u): their f32 3x3 rows held instead of U
  for (const w of weightBuffers(steps)) {
    const o = w.wino || w.winoRows ? acc.winograd : w.conv ? acc.conv : acc.other;
    if (w.wino) replaced += w.wino.cout * w.wino.cin * w.wino.kt * 9 * p.elemBytes;
    if (w.winoRows) rows++;
    o.bytes += w.conv ? convWeightBytes(w.conv, wFormat, p.elemBytes, tc) : Math.ceil((w.elems * (w.wino?.f32 || w.winoRows || (w.wino && p.elemBytes === 4) ? 4 : p.elemBytes)) / 4) * 4;
    o.count++;
  }
  if (acc.conv.bytes + acc.winograd.bytes + acc.other.bytes !== p.memory.weights) return null; // an owner this view does not know: show the total only
  const wp = p.opts.weightsPrecision ?? p.opts.precision;
  const out: WeightOwner[] = [{ owner: 'conv', ...acc.conv, text: `conv weights (${wp})` }];
  const held = acc.winograd.count - rows;
  const heldText = `Winograd-transformed weights of the ${held} conv layers run as Winograd (--conv), held instead of their ${(replaced / MiB).toFixed(1)} MiB of 3x3 weights`;
  if (acc.winograd.count)
    out.push({
      owner: 'winograd',
      ...acc.winograd,
      text: rows ? `f32 3x3 weights of the ${rows} conv layers run as Winograd (--conv) with U made per call${held ? `; ${heldText}` : ''}` : heldText,
    });
  out.push({ owner: 'other', ...acc.other, text: 'biases and norm scales' });
  return out.filter((o) => o.count > 0);
}

/**
 * Whether the expected-time model (plan/expected-time.ts) holds for `p` on `adapter`: it was fitted to
 * H200 decodes of every conv form, f32 and f16 (test/plan/expected-time-h200.node.test.ts: within 1.35x of
 * each recorded one); other GPUs are not.
 */
export function timeCalibrated(_p: Plan, adapter: AdapterView): boolean {
  return adapter.calibrated;
}

/** The expected-time line: only where the model is calibrated, and then said where. */
export function expectedText(e: ExpectedTime, p: Plan, adapter: AdapterView, tensorCores: boolean): string {
  if (!timeCalibrated(p, adapter)) return `time: not estimated (the time model is fitted to decodes on an H200; this is ${adapter.name})`;
  return `expected decode time on an H200 ~${e.total.toFixed(1)} s (compute ${e.compute.toFixed(1)} s on the ${tensorCores ? 'tensor-core' : 'portable'} conv, bus ${e.bus.toFixed(1)} s)`;
}
