// conv3d-head (shaders/conv3d-head.wgsl): the decoder's head conv (few output channels, 3x3x3) as a
// direct conv over 8 x 64 pixel tiles staged in workgroup memory, all output channels per invocation.
// Same bindings, params, weight layout and cost as conv3d (src/kernels/conv3d.ts), so a conv step can
// run either; overrides KT, HAS_RES, NORM, SILU, COUT4 (= ceil(cout / 4)); KS = 3 and UP = 0 only.
import src from '../../shaders/conv3d-head.wgsl?raw';
import common from '../../shaders/conv3d-common.wgsl?raw';
import wElem from '../../shaders/conv3d-w.wgsl?raw';
import { DecoderError } from '../gpu/errors';
import { wgslConst, type KernelDef } from '../gpu/kernel';
import { conv3d, type Conv3dParams } from './conv3d';

const TW = wgslConst(src, 'TW');
const TH = wgslConst(src, 'TH');
const MAX_C4 = wgslConst(src, 'MAX_C4');

const base = { KT: 3, KS: 3, UP: 0, HAS_RES: 0, NORM: 0, SILU: 0, COUT4: 1 };

export const conv3dHead: KernelDef<Conv3dParams> = {
  ...conv3d,
  id: 'conv3d-head',
  wgsl: `${src}\n${common}\n${wElem}`,
  overrides: base,
  dispatch(p, ov) {
    const o = { ...base, ...ov };
    const bad = (why: string) => new DecoderError('bad-input', `conv3d-head ${JSON.stringify({ ...p, ...o })}: ${why}`);
    if (o.KS !== 3 || o.UP !== 0) throw bad('only the 3x3 conv without upsampling (KS = 3, UP = 0)');
    if (o.KT !== 1 && o.KT !== 3) throw bad('KT must be 1 or 3');
    if (o.COUT4 !== Math.ceil(p.cout / 4) || o.COUT4 > MAX_C4) throw bad(`COUT4 must be ceil(cout / 4) <= ${MAX_C4}`);
    if (p.tap0 >= o.KT) throw bad('tap0 must be < KT');
    return [Math.ceil(p.w / TW), Math.ceil(p.h / TH), 1];
  },
  cost: (p, ov, elem) => conv3d.cost(p, { ...conv3d.overrides, ...ov }, elem),
};

/** MAX_C4 of shaders/conv3d-head.wgsl: the head kernel's largest output (vec4s); src/plan/conv-form.ts HEAD_MAX_C4 equals it (test/structure). */
export const HEAD_SHADER_MAX_C4 = MAX_C4;
