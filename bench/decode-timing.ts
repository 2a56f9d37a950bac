// Cold and warm decodes in one process, with the phase split of the cold one (issue 11): the plan the
// CLI would choose for the same flags (fitOptions + fitPlan, as src/node/cli.ts `decode`), generated
// official-shape weights (their generation timed apart: the CLI does it before its timed decode), then
// `--repeat` decodes of one WanVaeDecoder: the first builds the GPU decoder (weights prepared and
// uploaded, pipelines compiled: DecodeResult.startup), the later ones reuse it (warm).
// Run from the Node bench bundle:
//   node dist/bench-node.js --timing --model 2.2 --latent 31x44x80 [--repeat 2] [--prep gpu|js]
//     [--dawn-flags F] [CLI decode flags: --budget 1536, --norm fused, ...]
// One JSON line per decode on stdout ("seconds" as the CLI's: build + decode).
import { WanVaeDecoder, type DecodeOptions } from '../src/decoder';
import { DecoderError } from '../src/gpu/errors';
import { OFFICIAL, syntheticLatents, syntheticWeights } from '../src/model/synthetic';
import { fitPlan } from '../src/plan/auto';
import { cliValue, fitOptions, optionFlags, parseArgs } from '../src/node/cli-options';
import { installNodeWebGPU } from '../src/node/install-webgpu';
import { plan } from '../src/plan/planner';

export async function timingMain(argv: string[]): Promise<number> {
  const a = parseArgs(argv.slice(1), ['model', 'latent', 'repeat', 'prep', 'dawn-flags', ...optionFlags('decode')], []);
  const v = (a.model ?? '2.1') as '2.1' | '2.2';
  if (v !== '2.1' && v !== '2.2') throw new DecoderError('bad-input', `--model must be 2.1 or 2.2, got '${String(a.model)}'`);
  const [T, h, w] = String(a.latent ?? '21x60x104')
    .split('x')
    .map(Number) as [number, number, number];
  if (![T, h, w].every((n) => Number.isInteger(n) && n >= 1)) throw new DecoderError('bad-input', `--latent must be TxHxW, got '${String(a.latent)}'`);
  const repeat = Number(a.repeat ?? 2);
  const prep = (a.prep ?? 'gpu') as 'gpu' | 'js';
  if (prep !== 'gpu' && prep !== 'js') throw new DecoderError('bad-input', `--prep must be gpu or js, got '${String(a.prep)}'`);
  await installNodeWebGPU(typeof a['dawn-flags'] === 'string' ? [a['dawn-flags']] : []);
  const tGen = performance.now();
  const weights = syntheticWeights({ ...OFFICIAL[v], seed: 1 });
  const genMs = performance.now() - tGen;
  const dec = new WanVaeDecoder(weights);
  // the weight preparation of this decoder's GPU session (src/decode/gpu-session.ts weightPrep)
  (dec as unknown as { gpu: { weightPrep: 'gpu' | 'js' } }).gpu.weightPrep = prep;
  const latents = { data: syntheticLatents(dec.cfg.zDim, T, h, w), shape: [dec.cfg.zDim, T, h, w] as [number, number, number, number] };
  // the CLI's plan for these flags (src/node/cli.ts)
  const { cache, req } = fitOptions(a, await dec.gpuLimits());
  if (!(await dec.hasF16())) req.precisions = req.precisions.filter((p) => p === 'f32');
  const tensorCores = cliValue(a, 'tensorCores') && (await dec.hasTensorCores());
  const fit = fitPlan(dec.cfg, { frames: T, h, w, cache, tensorCores, conv: cliValue(a, 'conv') }, req);
  const o = fit.plan.opts;
  // time to the first frame: from the decode() call (cold: the build included) to the first onFrame
  let tCall = 0,
    firstFrameMs: number | null = null;
  const opts: DecodeOptions = {
    backend: 'webgpu',
    latentStats: 'official',
    collect: false,
    onFrame: () => void (firstFrameMs ??= performance.now() - tCall),
    cache,
    precision: o.precision,
    weightsPrecision: o.weightsPrecision,
    tile: o.tile,
    cacheOffload: o.cacheOffload ? 'on' : 'off',
    weightsStream: fit.plan.weightStream ? 'on' : 'off',
    weightsStreamSlots: fit.plan.weightStream?.slots,
    norm: o.norm,
    normChunk: o.normChunk,
    tensorCores: tensorCores && !!o.tensorCores,
    conv: o.conv,
  };
  // the decoder plans again inside its timed decode (src/decoder.ts): that plan() call, timed alone
  const tPlan = performance.now();
  plan(dec.cfg, { ...fit.plan.opts });
  const planMs = performance.now() - tPlan;
  for (let i = 0; i < repeat; i++) {
    firstFrameMs = null;
    tCall = performance.now();
    const r = await dec.decode(latents, opts);
    console.log(
      JSON.stringify({
        model: v,
        latent: [T, h, w],
        args: argv
          .slice(1)
          .filter((x, k, all) => x !== '--dawn-flags' && all[k - 1] !== '--dawn-flags')
          .join(' '),
        run: i,
        cold: i === 0,
        seconds: Number(r.seconds.toFixed(3)),
        firstFrameMs: firstFrameMs === null ? null : Math.round(firstFrameMs),
        genMs: Math.round(genMs),
        prep,
        build: i === 0 ? { ...r.startup, planMs: Number(planMs.toFixed(1)), weightPrep: r.startup?.prep, weightPack: r.startup?.pack } : null,
        plan: fit.reason,
        options: r.options,
        frames: r.frames,
        peakGpuBytes: r.peakGpuBytes,
        plannedPeakGpuBytes: r.plannedPeakGpuBytes,
        adapter: r.adapter,
      }),
    );
  }
  dec.dispose();
  return 0;
}
