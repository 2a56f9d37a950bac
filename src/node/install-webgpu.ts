// Node only: exposes WebGPU (Dawn, from the npm package `webgpu`) as `navigator.gpu`, like a browser.
// Picks Mesa lavapipe as the Vulkan ICD when none is chosen (see shared TOOLING.md): the env must be set
// before the Dawn addon loads, hence the dynamic import.
import { existsSync } from 'node:fs';
import { DecoderError } from '../gpu/errors';

const LAVAPIPE_ICD = '/usr/share/vulkan/icd.d/lvp_icd.json';

let installing: Promise<void> | null = null;

/** Installs `navigator.gpu` and the WebGPU globals (GPUBufferUsage, ...) in Node. Idempotent. */
export function installNodeWebGPU(dawnFlags: string[] = []): Promise<void> {
  if ((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu) return Promise.resolve();
  installing ??= install(dawnFlags).catch((e: unknown) => {
    installing = null;
    throw e;
  });
  return installing;
}

async function install(dawnFlags: string[]): Promise<void> {
  if (!process.env.VK_ICD_FILENAMES && existsSync(LAVAPIPE_ICD)) process.env.VK_ICD_FILENAMES = LAVAPIPE_ICD;
  if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = '/tmp';
  const { create, globals } = await loadDawn();
  Object.assign(globalThis, globals);
  const gpu = create(dawnFlags);
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav) {
    // Node >= 21 has a global navigator (a getter on globalThis): add gpu to it if it accepts new properties.
    try {
      Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true, enumerable: true, writable: true });
      if ((nav as { gpu?: unknown }).gpu === gpu) return;
    } catch {
      // fall through: replace navigator
    }
  }
  Object.defineProperty(globalThis, 'navigator', {
    value: { ...copyNavigatorFields(nav), gpu },
    configurable: true,
    enumerable: true,
    writable: true,
  });
}

function copyNavigatorFields(nav: object | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!nav) return out;
  for (const k of ['hardwareConcurrency', 'language', 'languages', 'platform', 'userAgent']) {
    try {
      out[k] = (nav as Record<string, unknown>)[k];
    } catch {
      // getter refused: leave it out
    }
  }
  return out;
}

/** The optional peer dependency `webgpu` (Dawn's Node addon), or a DecoderError saying how to install it. */
export async function loadDawn(): Promise<typeof import('webgpu')> {
  try {
    return await import('webgpu');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes("'webgpu'"))
      throw new DecoderError('no-webgpu', "WebGPU in Node needs the optional peer dependency 'webgpu' (Dawn): install it with `npm install webgpu@^0.6.2` next to wan-vae-webgpu");
    throw new DecoderError('no-webgpu', `the 'webgpu' package (Dawn) failed to load: ${(e as Error).message}`, { cause: e });
  }
}
