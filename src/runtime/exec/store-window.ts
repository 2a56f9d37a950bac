// The latent-rate store of tile-major order. 'gpu': one GPU buffer of every chunk's entries. 'cpu': the
// entries of each chunk are read back into host memory after the latent program's run, and uploaded
// into a one-chunk GPU window before each tile program that crops from the store runs for that chunk,
// through the two mapped upload buffers of exec/upload-pair.ts (made at the first upload, freed by destroy()).
import type { Plan, ProgramPlan } from '../../plan/planner';
import { kindOf } from '../../plan/step-kinds';
import type { Resources } from './resources';
import { UploadPair } from './upload-pair';
import { PREP_CHUNK_BYTES } from './weights';

export class StoreWindow {
  private readonly host: Uint8Array<ArrayBuffer>[] = [];
  private readonly onCpu: boolean;
  /** the window's uploads ('cpu'): host memory the plan does not count, as Dawn's upload memory of writeBuffer is not */
  private pair: UploadPair | null = null;

  constructor(
    private readonly device: GPUDevice,
    private readonly plan: Plan,
    private readonly res: Resources,
  ) {
    this.onCpu = plan.storeWhere === 'cpu';
  }

  /** Byte offset of entry (chunk, which) in the GPU store (the 'cpu' window holds one chunk). */
  offset(chunk: number, which: number): number {
    return ((this.onCpu ? 0 : chunk * this.plan.storePerChunk) + which) * this.plan.storeEntryBytes;
  }

  /** Where a store step's copy goes: the store, or (cpu) the staging buffer read back after the run. */
  copyTarget(): GPUBuffer {
    return this.onCpu ? this.res.storeStaging! : this.res.store!;
  }

  /** Entry `which` of `chunk` as a bound range. */
  entry(chunk: number, which: number): GPUBufferBinding {
    return { buffer: this.res.store!, offset: this.offset(chunk, which), size: this.plan.storeEntryBytes };
  }

  /** Before a run: a program that crops from the store gets this chunk's entries in the window ('cpu'). */
  async beforeRun(pp: ProgramPlan, chunk: number): Promise<void> {
    if (!this.onCpu || !pp.prog.steps.some((s) => kindOf(s).perChunk(s))) return;
    const src = this.host[chunk]!;
    this.pair ??= new UploadPair(this.device, Math.min(PREP_CHUNK_BYTES, src.byteLength), 'store window');
    await this.pair.copy(this.res.store!, 0, new Float32Array(src.buffer, src.byteOffset, src.byteLength / 4), 0, src.byteLength / 4);
  }

  /** After a run is submitted: a program that wrote store entries has them read back ('cpu'). */
  async afterSubmit(pp: ProgramPlan, chunk: number): Promise<void> {
    if (!this.onCpu || !pp.prog.steps.some((s) => kindOf(s).storeWrite(s))) return;
    const st = this.res.storeStaging!;
    await st.mapAsync(GPUMapMode.READ);
    this.host[chunk] = new Uint8Array(st.getMappedRange().slice(0));
    st.unmap();
  }

  /** Frees the upload buffers (the window itself is the arena's). */
  destroy(): void {
    this.pair?.destroy();
    this.pair = null;
  }
}
