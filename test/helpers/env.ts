// Test environment facts that work in both vitest projects (node and browser).
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** process.env.CI on the vitest host (the browser has no process.env). */
    CI: boolean;
    /** absolute path of ../shared on the vitest host (WAN_SHARED_DIR overrides). */
    sharedDir: string;
  }
}

export const isBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';

/** True under CI: missing GPU adapters or goldens must fail there instead of skipping. */
export function isCI(): boolean {
  return inject('CI');
}
