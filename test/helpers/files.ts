// Read files under ../shared (goldens, references) by path relative to it, in both vitest projects.
// node: fs. browser: the `readSharedBase64` command registered in vite.config.ts (runs on the vitest
// host, sends base64 over vitest's RPC; fine for the few-MB goldens).
import { inject } from 'vitest';
import { isBrowser } from './env';

declare module 'vitest/browser' {
  interface BrowserCommands {
    readSharedBase64: (rel: string) => Promise<string | null>;
    sharedExists: () => Promise<boolean>;
  }
}

// `vitest/browser` throws when imported outside browser mode: import it lazily, in the browser only.
const browserCommands = async () => (await import('vitest/browser')).commands;

/** Contents of ../shared/<rel> (e.g. 'golden/wan21-tiny.safetensors'); null when ../shared is absent. */
export async function readSharedFile(rel: string): Promise<Uint8Array | null> {
  if (isBrowser) {
    const b64 = await (await browserCommands()).readSharedBase64(rel);
    return b64 === null ? null : fromBase64(b64);
  }
  const [{ readFile }, { existsSync }, { join }] = await Promise.all([import('node:fs/promises'), import('node:fs'), import('node:path')]);
  const dir = inject('sharedDir');
  if (!existsSync(dir)) return null;
  const buf = await readFile(join(dir, rel));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

let available: Promise<boolean> | null = null;

/** Whether ../shared is present (tests needing goldens skip without it, outside CI). */
export function sharedAvailable(): Promise<boolean> {
  available ??= (async () => {
    if (isBrowser) return (await browserCommands()).sharedExists();
    const { existsSync } = await import('node:fs');
    return existsSync(inject('sharedDir'));
  })();
  return available;
}

function fromBase64(b64: string): Uint8Array {
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (native) return native(b64);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
