// Explicit kernel registry: every KernelDef of the decoder, by name. No side-effect registration.
import { attention } from './attention';
import { conv3d } from './conv3d';
import { dupUpAdd } from './dup-up-add';
import { output } from './output';
import { rmsNorm } from './rms-norm';

export const kernels = { conv3d, rmsNorm, attention, dupUpAdd, output } as const;
