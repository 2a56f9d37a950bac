// The layers of src/: no import cycle anywhere (type-only imports count: a cycle of types is still two
// modules that cannot be understood one without the other), and the planning layer (src/plan) reaches no
// WGSL source through its imports (it plans without the kernels' shaders; the executor, src/runtime,
// binds them). The parser is checked on cycles and shader imports made for the test.
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAD_SHADER_MAX_C4 } from '../../src/kernels/conv3d-head';
import { HEAD_MAX_C4 } from '../../src/plan/conv-form';
import { cycles, importGraph, shadersReached } from './imports';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('src/ import structure', () => {
  it('no import cycle in src/', () => {
    const found = cycles(importGraph(root));
    expect(
      found.map((c) => c.join(' -> ')),
      'import cycles',
    ).toEqual([]);
  });

  it('src/plan reaches no WGSL source (no kernel module carrying shaders)', () => {
    const g = importGraph(root);
    const bad = [...g.keys()].filter((f) => f.startsWith('src/plan/')).flatMap((f) => [...shadersReached(g, f).values()].slice(0, 1).map((chain) => chain.join(' -> ')));
    expect(bad, 'planning modules reaching shaders').toEqual([]);
  });

  it('finds a cycle made for the test (type-only imports too), and a shader import under src/plan', () => {
    const g = importGraph(root, 'src', {
      'src/plan/cycle-a.tmp.ts': "import type { B } from './cycle-b.tmp';\nexport type A = B;\n",
      'src/plan/cycle-b.tmp.ts': "import { x } from './cycle-a.tmp';\nexport type B = number;\nexport const y = x;\n",
      'src/plan/shader.tmp.ts': "import { conv3d } from '../kernels/conv3d';\nexport const k = conv3d;\n",
    });
    expect(cycles(g)).toContainEqual(['src/plan/cycle-a.tmp.ts', 'src/plan/cycle-b.tmp.ts']);
    const chain = shadersReached(g, 'src/plan/shader.tmp.ts');
    expect([...chain.keys()]).toContain('shaders/conv3d.wgsl');
    expect(chain.get('shaders/conv3d.wgsl')).toEqual(['src/plan/shader.tmp.ts', 'src/kernels/conv3d.ts', 'shaders/conv3d.wgsl']);
  });

  it("conv-form.ts's head limit is the head shader's MAX_C4", () => {
    expect(HEAD_MAX_C4).toBe(HEAD_SHADER_MAX_C4);
  });
});
