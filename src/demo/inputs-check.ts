// Checks of the loaded model, latents and statistics, made as soon as they are loaded (before any plan):
// the latent channel count against the model's z, and whether the chosen statistics exist for it. A
// problem goes on the latents card, in the plan, and keeps Decode disabled. Also the line saying which
// statistics a decode applies.
import type { Latents } from '../model/latents';
import { officialStats } from '../model/stats';
import type { ModelInfo } from '../worker/protocol';

export type StatsChoice = 'official' | 'none' | 'file';

/** Why these latents cannot be decoded with this model and statistics ('' when they can). */
export function inputProblem(m: ModelInfo, l: Latents, name: string, stats: StatsChoice): string {
  const z = l.shape[0];
  if (z !== m.zDim)
    return `Latents ${name} have ${z} channels (shape [${l.shape.join(', ')}]); the Wan${m.version} model (${m.source}) expects ${m.zDim}. Open latents made for this model, or the model they were made for.`;
  if (stats === 'official') {
    try {
      officialStats(z);
    } catch {
      return `No official latent statistics for z=${z} (only Wan2.1 z=16 and Wan2.2 z=48 have them): choose "none" for latents that are already de-normalised${l.stats ? ', or "from file"' : ''}.`;
    }
  }
  if (stats === 'file') {
    if (!l.stats) return `Latents ${name} hold no @mean/@std statistics: choose "official" or "none".`;
    if (l.stats.mean.length !== z || l.stats.std.length !== z) return `The statistics stored in ${name} have ${l.stats.mean.length} means and ${l.stats.std.length} stds, the latents ${z} channels.`;
  }
  return '';
}

function preview(a: Float32Array): string {
  const head = [...a.slice(0, 3)].map((v) => v.toFixed(3)).join(', ');
  return a.length > 3 ? `${head}, …` : head;
}

/** One line: what `latents · std + mean` uses. */
export function statsLine(l: Latents, name: string, stats: StatsChoice): string {
  if (stats === 'none') return 'Applied: none (the latents are used as they are, already de-normalised).';
  if (stats === 'file' && l.stats) return `Applied: from ${name}: mean [${preview(l.stats.mean)}], std [${preview(l.stats.std)}] (${l.stats.mean.length} channels).`;
  try {
    const s = officialStats(l.shape[0]);
    return `Applied: official Wan${l.shape[0] === 48 ? '2.2' : '2.1'} statistics (z=${l.shape[0]}): mean [${preview(s.mean)}], std [${preview(s.std)}].`;
  } catch {
    return '';
  }
}
