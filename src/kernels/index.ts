// Registry of every kernel (explicit list, no side-effect registration).
import { attention } from './attention';
import { attentionCombine } from './attention-combine';
import { attentionPack } from './attention-pack';
import { conv3d, conv3dWq } from './conv3d';
import { crop } from './crop';
import { dupUpAdd } from './dup-up-add';
import { output } from './output';
import { rmsNorm } from './rms-norm';

export const kernels = { conv3d, conv3dWq, rmsNorm, attention, attentionCombine, attentionPack, dupUpAdd, output, crop } as const;

export type { AttentionParams } from './attention';
export type { Conv3dParams } from './conv3d';
export type { CropParams } from './crop';
export type { DupUpAddParams } from './dup-up-add';
export type { OutputParams } from './output';
export type { RmsNormParams } from './rms-norm';
export { conv3dTuning, conv3dTuningFor, packConvWeight, packedConvWeightLength } from './conv3d';
