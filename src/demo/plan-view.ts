// The planner's prediction before a decode: peak GPU bytes by owner, the host memory a CPU tile store
// takes, the output size, what fitPlan chose (with a budget or a lever on auto), and whether the largest buffer fits the adapter's
// per-binding limit (WebGPU exposes no total-memory figure, so that is the check the page can make; the
// decoder makes the same one and refuses with a 'limits' error).
import type { PlanInfo } from '../worker/protocol';
import { h } from './dom';
import { formatBytes } from './format';
import type { GpuProbe } from './gpu-probe';
import { OWNERS, OWNER_COLOR, OWNER_HELP } from './owners';

export interface Fit {
  fits: boolean;
  /** the warning shown before a decode that will not fit ('' when it fits) */
  warning: string;
}

export function checkFit(plan: PlanInfo, gpu: GpuProbe, backend: 'webgpu' | 'cpu'): Fit {
  if (backend === 'cpu' || !gpu.available) return { fits: true, warning: '' };
  if (plan.largestBufferBytes <= gpu.maxBinding) return { fits: true, warning: '' };
  return {
    fits: false,
    warning:
      `Will not fit this adapter: the largest buffer is ${formatBytes(plan.largestBufferBytes)}, the adapter binds at most ` +
      `${formatBytes(gpu.maxBinding)}. Use tiles (tile-major with store cpu keeps the largest one in CPU memory), f16, norm fused, or set tiles to auto to let the planner pick.`,
  };
}

/** `reason`: fitPlan's choice, null when the options were planned as set. */
export function renderPlan(el: HTMLElement, plan: PlanInfo, gpu: GpuProbe, backend: 'webgpu' | 'cpu', fit: Fit, reason: string | null): void {
  const max = Math.max(1, ...OWNERS.map((o) => plan.memory[o] ?? 0));
  // each owner's name is a button: a tap or click shows what it is in a row under it (no hover-only tooltip)
  const rows = OWNERS.flatMap((o) => {
    const bytes = plan.memory[o] ?? 0;
    const meter = h('div', { class: 'meter', style: `width:${(100 * bytes) / max}%;background:${OWNER_COLOR[o]}` });
    const help = h('tr', { class: 'owner-help', 'data-help': o, hidden: '' }, h('td', { colspan: '3' }, OWNER_HELP[o]));
    const name = h('button', { type: 'button', class: 'linklike owner', 'aria-expanded': 'false', title: OWNER_HELP[o] }, o);
    name.addEventListener('click', () => {
      help.hidden = !help.hidden;
      name.setAttribute('aria-expanded', String(!help.hidden));
    });
    return [h('tr', { 'data-owner': o, 'data-bytes': String(bytes) }, h('td', {}, name), h('td', { style: 'width:50%' }, meter), h('td', { class: 'num' }, formatBytes(bytes))), help];
  });
  const limit = gpu.available
    ? h(
        'span',
        { class: fit.fits ? 'fit-ok' : 'fit-bad' },
        `${fit.fits ? '✓ fits' : '✗ too large'}: largest buffer ${formatBytes(plan.largestBufferBytes)} of ${formatBytes(gpu.maxBinding)} per binding`,
      )
    : h('span', { class: 'muted' }, `largest buffer ${formatBytes(plan.largestBufferBytes)} (no adapter to check against)`);
  el.replaceChildren(
    h('div', {}, h('span', { class: 'peak', 'data-testid': 'plan-peak', 'data-bytes': String(plan.plannedPeakGpuBytes) }, formatBytes(plan.plannedPeakGpuBytes)), ' peak GPU memory'),
    // CPU memory by owner (src/plan/host-text.ts: the same lines as `wan-vae plan`), growth per latent frame
    ...(plan.host.total > 0
      ? [
          h(
            'div',
            { class: 'host-store', 'data-testid': 'plan-host', 'data-bytes': String(plan.host.total), title: OWNER_HELP.store },
            `+ ${formatBytes(plan.host.total)} in CPU memory`,
            h(
              'span',
              { class: 'muted' },
              ` (${plan.host.lines.map((l) => `${l.text}: ${formatBytes(l.bytes)}${l.perLatentFrame ? `, +${formatBytes(l.perLatentFrame)} per latent frame` : ''}`).join('; ')})`,
            ),
            ...(plan.bus.store + plan.bus.cache + plan.bus.weights > 0
              ? [
                  h(
                    'div',
                    { class: 'muted', 'data-testid': 'plan-bus', 'data-bytes': String(plan.bus.total) },
                    `${formatBytes(plan.bus.total / Math.max(1, plan.frames))} per frame over the bus (levers ${formatBytes(plan.bus.store + plan.bus.cache + plan.bus.weights)} in all)`,
                  ),
                ]
              : []),
          ),
        ]
      : []),
    h('div', { class: 'hint' }, `${plan.frames} frames of ${plan.width}×${plan.height}`, backend === 'cpu' ? ' · the cpu backend uses no GPU memory; the figures are for webgpu' : ''),
    ...(reason ? [h('div', { class: 'fit-choice', 'data-testid': 'plan-fit' }, h('b', {}, 'Planner chose: '), reason)] : []),
    h('table', {}, h('tbody', {}, ...rows)),
    h('div', { class: 'hint' }, 'Tap a name for what it holds.'),
    h('div', { class: 'hint' }, limit),
  );
}

export function renderPlanError(el: HTMLElement, message: string): void {
  el.replaceChildren(h('span', { class: 'fit-bad', 'data-testid': 'plan-error' }, message));
}
