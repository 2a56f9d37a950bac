// Node only (no GPU): every KernelDef agrees with its WGSL. A small regex reflector reads the storage
// bindings of group 0 (names, order, access), `struct Params` (field names, order, scalar types), the
// params uniform at group 1 binding 0, the override names and defaults, and the `alias Elem = f32;` line. Also checks
// encodeParams' layout and pipelineKey's normalisation.
import { describe, expect, it } from 'vitest';
import { encodeParams, pipelineKey, shaderSource, type AnyKernelDef } from '../../src/gpu/kernel';
import { conv3dMma } from '../../src/kernels/conv3d-mma';
import { kernels } from '../../src/kernels/index';

interface Reflection {
  bindings: { group: number; binding: number; name: string; access: string }[];
  uniform: { group: number; binding: number; type: string } | null;
  params: { name: string; type: string }[];
  /** name and default value */
  overrides: (readonly [string, number])[];
}

function reflect(wgsl: string): Reflection {
  const code = wgsl.replace(/\/\/.*$/gm, '');
  const bindings = [...code.matchAll(/@group\((\d+)\)\s*@binding\((\d+)\)\s*var<storage\s*,\s*(read|read_write)>\s*(\w+)/g)].map((m) => ({
    group: Number(m[1]),
    binding: Number(m[2]),
    access: m[3]!,
    name: m[4]!,
  }));
  const u = /@group\((\d+)\)\s*@binding\((\d+)\)\s*var<uniform>\s*\w+\s*:\s*(\w+)/.exec(code);
  const struct = /struct\s+Params\s*\{([^}]*)\}/.exec(code);
  const params = struct
    ? struct[1]!
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean)
        .map((f) => {
          const [name, type] = f.split(':').map((s) => s.trim());
          return { name: name!, type: type! };
        })
    : [];
  const overrides = [...code.matchAll(/^\s*override\s+(\w+)\s*:\s*\w+\s*=\s*([0-9.]+(?:e[+-]?\d+)?)/gm)].map((m) => [m[1]!, Number(m[2])] as const);
  return {
    bindings,
    uniform: u ? { group: Number(u[1]), binding: Number(u[2]), type: u[3]! } : null,
    params,
    overrides,
  };
}

// conv3dMma is not in `kernels` (it needs the subgroup-matrix feature) but shares the same contract
const defs = [...Object.entries(kernels), ['conv3dMma', conv3dMma]] as [string, AnyKernelDef][];

describe('KernelDef matches WGSL', () => {
  it.each(defs)('%s', (_n, def) => {
    const r = reflect(def.wgsl);
    expect(r.bindings.every((b) => b.group === 0)).toBe(true);
    expect(r.bindings.map((b) => b.binding)).toEqual(def.bindings.map((_, i) => i));
    expect(r.bindings.map((b) => [b.name, b.access])).toEqual(def.bindings.map((b) => [b.name, b.access]));
    expect(r.uniform).toEqual({ group: 1, binding: 0, type: 'Params' });
    expect(r.params).toEqual(def.params.map((p) => ({ name: p.name, type: p.type })));
    expect(Object.fromEntries(r.overrides)).toEqual(def.overrides);
    expect(def.wgsl).toMatch(/^alias Elem = f32;$/m);
    // the only extension a kernel may enable itself: subgroup matrices (conv3d-mma); f16 comes from shaderSource
    expect(def.wgsl.replace(/^enable chromium_experimental_subgroup_matrix;$/m, '')).not.toMatch(/^\s*enable /m);
    expect(shaderSource(def, 'f16')).toMatch(/^enable f16;\nalias Elem = f16;$/m);
    expect(def.wgsl).toMatch(/@compute @workgroup_size\([^)]*\)\s*fn main\(/);
  });
});

describe('encodeParams / pipelineKey', () => {
  it('packs scalars in order, 4 bytes each, padded to 16', () => {
    const bytes = encodeParams(kernels.attention, { c: 384, n: 6240, scale: 0.5 });
    expect(bytes.byteLength).toBe(16);
    const v = new DataView(bytes.buffer);
    expect([v.getUint32(0, true), v.getUint32(4, true), v.getFloat32(8, true)]).toEqual([384, 6240, 0.5]);
    // conv3d's eleventh and twelfth fields carry KT and HAS_RES (conv3d-tiled reads them; conv3d bakes them and ignores the fields)
    const conv = encodeParams(kernels.conv3d, { cin: 1, cout: 2, h: 3, w: 4, x_off: 5, prev2_off: 6, prev1_off: 7, res_off: 8, y_off: 9, tap0: 2 }, { HAS_RES: 2 });
    expect(conv.byteLength).toBe(48);
    expect([...new Uint32Array(conv.buffer)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 2]);
  });
  it('rejects missing, negative and fractional u32 params', () => {
    expect(() => encodeParams(kernels.attention, { c: 1, scale: 1 } as never)).toThrow(/param n/);
    expect(() => encodeParams(kernels.attention, { c: -1, n: 1, scale: 1 })).toThrow(/u32/);
    expect(() => encodeParams(kernels.attention, { c: 1.5, n: 1, scale: 1 })).toThrow(/integer/);
  });
  it('keys include defaults, sorted; unknown overrides are refused', () => {
    expect(pipelineKey(kernels.rmsNorm, { SILU: 1 }, 'f16')).toBe('rms-norm|f16|INPLACE=0,INV_MAX=3e+38,SILU=1,STATS=0,WG=64');
    expect(pipelineKey(kernels.rmsNorm, {}, 'f32')).toBe(pipelineKey(kernels.rmsNorm, { SILU: 0 }, 'f32'));
    expect(() => pipelineKey(kernels.rmsNorm, { SILLU: 1 }, 'f32')).toThrow(/unknown override/);
  });
});
