// The index of a checkpoint file (safetensors or torch.save zip): where each tensor's bytes lie, read by
// range afterwards. Its own module so the format readers (safetensors.ts, pth.ts) and checkpoint.ts, which
// picks the reader, share the types without importing each other.

/** The element types a checkpoint tensor may have (safetensors names; torch.save storages map to them). */
export type StDtype = 'F32' | 'F16' | 'BF16' | 'F64';

export interface IndexedTensor {
  name: string;
  dtype: StDtype;
  shape: number[];
  /** byte offset in the file (-1: not located, the tensor was not asked for) */
  offset: number;
  byteLength: number;
}

export interface CheckpointIndex {
  format: 'safetensors' | 'pytorch';
  tensors: Map<string, IndexedTensor>;
  /** tensors of a dtype the decoder does not read: name -> dtype */
  skipped: Map<string, string>;
  metadata: Record<string, string>;
}
