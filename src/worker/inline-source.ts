// The decoder worker's code as one string, for the inline (blob URL) fallback of spawn.ts. From the
// sources there is none (vite serves and bundles the worker file itself); the library build
// (vite.lib.config.ts) replaces this module with one that loads dist/lib/decoder.worker.js's text
// from a lazily imported chunk, so bundlers that do not copy the worker file (esbuild) still work.
export async function inlineWorkerSource(): Promise<string | null> {
  return null;
}
