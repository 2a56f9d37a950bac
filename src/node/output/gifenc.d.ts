// Types of the parts of gifenc 1.0 (MIT, no bundled types) that the GIF writer uses.
declare module 'gifenc' {
  export type Palette = number[][];
  export interface Encoder {
    /** 'GIF89a' (manual mode: `auto: false`, the first frame then says `first: true`) */
    writeHeader(): void;
    writeFrame(index: Uint8Array, width: number, height: number, opts?: { palette?: Palette; delay?: number; repeat?: number; first?: boolean }): void;
    finish(): void;
    bytes(): Uint8Array;
    /** the bytes written so far, without a copy */
    bytesView(): Uint8Array;
    /** the output buffer: reset() empties it (the encoder's state stays) */
    readonly stream: { reset(): void };
  }
  export function GIFEncoder(opts?: { auto?: boolean; initialCapacity?: number }): Encoder;
  export function quantize(rgba: Uint8Array | Uint8ClampedArray, maxColors: number, opts?: { format?: 'rgb565' | 'rgb444' | 'rgba4444' }): Palette;
  export function applyPalette(rgba: Uint8Array | Uint8ClampedArray, palette: Palette, format?: 'rgb565' | 'rgb444' | 'rgba4444'): Uint8Array;
}
