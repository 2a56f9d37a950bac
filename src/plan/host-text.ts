// What a plan keeps in CPU memory and moves over the bus, in words: one line per owner, for `wan-vae plan`,
// its --json and the demo's plan view (one wording everywhere). Pure TS, no GPU.
// The growth per latent frame is measured by planning the same decode one latent frame longer, so the
// text cannot drift from the planner's own accounting.
import { type BusTraffic, type HostBreakdown, type Plan } from './planner';

export interface HostLine {
  owner: Exclude<keyof HostBreakdown, 'total'>;
  bytes: number;
  /** bytes more per latent frame (0: constant in the video length) */
  perLatentFrame: number;
  /** one line: what it is */
  text: string;
}

const TEXT: Record<HostLine['owner'], string> = {
  store: "tile-major store: every latent frame's latent-rate output, waiting for the tiles",
  frames: 'frames being assembled',
  cache: "parked tile caches: the idle tiles' cache rings (cache offload)",
  weights: 'streamed conv weights (weight streaming)',
};

/**
 * The CPU memory of `p` by owner (non-zero owners only). `longer`: the same plan one latent frame longer
 * (plan(cfg, {...p.opts, frames: p.opts.frames + 1})), which gives the growth per latent frame.
 */
export function hostLines(p: Plan, longer: Plan): HostLine[] {
  const out: HostLine[] = [];
  for (const owner of Object.keys(TEXT) as HostLine['owner'][]) {
    const bytes = p.host[owner] ?? 0;
    if (!bytes) continue;
    const perLatentFrame = Math.max(0, (longer.host[owner] ?? 0) - bytes);
    const text =
      owner === 'frames'
        ? p.opts.tile?.order === 'tile-major'
          ? 'frames being assembled (tile-major completes every frame with its last tile, so all of them wait)'
          : 'frames being assembled (one chunk)'
        : TEXT[owner];
    out.push({ owner, bytes, perLatentFrame, text });
  }
  return out;
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** `CPU memory 412.0 MiB` and one indented line per owner, with its growth per latent frame. */
export function hostText(p: Plan, longer: Plan): string[] {
  const lines = hostLines(p, longer);
  const grows = lines.reduce((a, l) => a + l.perLatentFrame, 0);
  return [
    `CPU memory ${mib(p.host.total)}${grows ? ` (grows by ${mib(grows)} per latent frame)` : ' (constant in the video length)'}; the written video is not counted`,
    ...lines.map((l) => `  ${l.owner.padEnd(10)} ${mib(l.bytes)}: ${l.text}${l.perLatentFrame ? ` (+${mib(l.perLatentFrame)} per latent frame)` : ''}`),
  ];
}

/** One line: bytes over the bus in the decode, per output frame, and the levers' part (their time is the expected-time model's `bus`, plan/expected-time.ts). */
export function busText(b: BusTraffic, framesOut: number): string {
  const levers = b.store + b.cache + b.weights;
  return `bus ${mib(b.total)} (${mib(b.total / framesOut)} per frame)${levers ? `: levers ${mib(levers)} (store ${mib(b.store)}, caches ${mib(b.cache)}, weights ${mib(b.weights)})` : ': the frames only'}`;
}
