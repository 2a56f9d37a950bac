// Offloaded caches (PlanOptions.cacheOffload): in frame-major tiled order every tile keeps its own causal
// cache rings (2 frames per cached conv), so the GPU would hold the rings of all tiles. Here ring s<k> of
// every tile shares one GPU buffer (planner: RingPlan.buffer) and the rings of the tiles not being decoded
// are parked in CPU memory: a chunk's program is submitted tile by tile; before tile j's part the tile's
// rings are uploaded from the host (chunk 0: cleared instead), after it they are copied, a batch at a time,
// into one readback buffer the size of the largest ring and mapped into the host copy (not after the last
// chunk: nothing reads them again). The first batch rides in the tile's own submission.
// Bytes: host = sum of every tile's rings (Plan.host.cache); GPU = one set of ring buffers + the readback
// buffer (Plan.parkStagingBytes); bus per chunk = 2x the host bytes (Plan.bus.cache).
// Exact: the conv reads ring frames at the same offsets (ring counters stay per tile key); only where
// the bytes wait between a tile's runs changes.
import type { Plan, ParkedTile, ProgramPlan } from '../../plan/planner';
import type { Resources } from './resources';

/** Steps [from, to) of a frame-major program that one submission runs; `tile` null for the latent-rate part alone. */
export interface Segment {
  from: number;
  to: number;
  tile: number | null;
}

export class CachePark {
  /** each tile's parked ring bytes, laid out as in the readback buffer (ParkedTile offsets) */
  private readonly host: Uint8Array<ArrayBuffer>[];
  private readonly tiles: ParkedTile[];

  constructor(
    private readonly device: GPUDevice,
    private readonly plan: Plan,
    private readonly res: Resources,
  ) {
    this.tiles = plan.park!;
    this.host = this.tiles.map((t) => new Uint8Array(t.bytes));
  }

  /**
   * The submissions of one run of frame-major program `pp`: the latent-rate part with tile 0, then one
   * per tile (each tile's part ends where the next begins; graph.ts Program.tileStarts).
   */
  segments(pp: ProgramPlan): Segment[] {
    const starts = pp.prog.tileStarts;
    if (!starts?.length) throw new Error(`internal: cache offload needs a frame-major tiled program, got '${pp.prog.name}' without tile starts`);
    const n = pp.prog.steps.length;
    return starts.map((s, j) => ({ from: j === 0 ? 0 : s, to: starts[j + 1] ?? n, tile: j }));
  }

  /** Before tile `tile`'s part of chunk `chunk`: its rings back in the shared buffers (chunk 0: zeroed, as at a decode's start). */
  before(tile: number, chunk: number, enc: GPUCommandEncoder): void {
    const t = this.tiles[tile]!;
    for (const r of t.rings) {
      const buf = this.res.rings.get(r.key)!;
      if (chunk === 0) enc.clearBuffer(buf, 0, r.bytes);
      // queue order: this write lands after the previous tile's readback copy (submitted before it)
      else this.device.queue.writeBuffer(buf, 0, this.host[tile]!, r.offset, r.bytes);
    }
  }

  /** Copy the rings of readback batch `batch` of `tile` into the readback buffer. */
  private copyBatch(tile: number, batch: number, enc: GPUCommandEncoder): void {
    for (const r of this.tiles[tile]!.rings) if (r.batch === batch) enc.copyBufferToBuffer(this.res.rings.get(r.key)!, 0, this.res.parkStaging!, r.stagingOffset, r.bytes);
  }

  /** After tile `tile`'s part is encoded: its first readback batch (not after the last chunk). True when it parks. */
  copyOut(tile: number, chunk: number, enc: GPUCommandEncoder): boolean {
    if (chunk === this.plan.opts.frames - 1) return false;
    this.copyBatch(tile, 0, enc);
    return true;
  }

  /**
   * After the part is submitted: map each batch into the tile's host copy (batches after the first are
   * copied by a submission of their own once the previous one is unmapped).
   */
  async readBack(tile: number, check?: () => void): Promise<void> {
    const t = this.tiles[tile]!;
    const st = this.res.parkStaging!;
    for (let b = 0; b < t.batches; b++) {
      if (b) {
        check?.(); // a cancelled decode submits nothing more (the next decode starts from cleared rings)
        const enc = this.device.createCommandEncoder({ label: `park tile ${tile} batch ${b}` });
        this.copyBatch(tile, b, enc);
        this.device.queue.submit([enc.finish()]);
      }
      const rs = t.rings.filter((r) => r.batch === b);
      const bytes = Math.max(...rs.map((r) => r.stagingOffset + r.bytes));
      await st.mapAsync(GPUMapMode.READ, 0, bytes);
      try {
        const m = new Uint8Array(st.getMappedRange(0, bytes));
        for (const r of rs) this.host[tile]!.set(m.subarray(r.stagingOffset, r.stagingOffset + r.bytes), r.offset);
      } finally {
        st.unmap();
      }
    }
  }
}
