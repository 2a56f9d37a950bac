// JS time of packing int8 conv weights for the tensor-core path (runtime/exec/weights.ts packWeight): the
// two-step packInt8Blocked(packConvWeightBlocked(w)) against packInt8BlockedRows (one pass from the
// PyTorch rows, the same bytes: test/levers/int8-mma.node.test.ts), over Wan2.1's official-shape conv
// weights (generated), each way twice. The CLI's `seconds` of an int8 decode includes this packing.
// Run: node --import tsx --import ./bench/levers/register-wgsl.mjs bench/levers/int8-pack-time.ts [2.1|2.2]
import { OFFICIAL, syntheticWeights } from '../../src/model/synthetic';
import { packConvWeightBlocked } from '../../src/kernels/conv3d-mma';
import { packInt8Blocked, packInt8BlockedRows } from '../../src/model/quantize';

const v = process.argv[2] === '2.2' ? '2.2' : '2.1';
const w = syntheticWeights(OFFICIAL[v]);
const convs = [...w.map].filter(([k, t]) => k.endsWith('.weight') && t.shape.length >= 4).map(([, t]) => t);
const n = convs.reduce((a, t) => a + t.data.length, 0);
for (const way of ['two-step', 'rows', 'two-step', 'rows']) {
  const t0 = performance.now();
  for (const t of convs) {
    const [cout, cin] = t.shape as [number, number];
    const taps = t.data.length / cout / cin;
    const kt = t.shape.length === 5 ? t.shape[2]! : 1,
      ks = t.shape.at(-1)!;
    if (way === 'rows') packInt8BlockedRows(t.data, cout, cin, taps);
    else packInt8Blocked(packConvWeightBlocked(t.data, cout, cin, kt, ks), cout, cin, taps);
  }
  console.log(`Wan${v} ${(n / 1e6).toFixed(1)} M conv weights, int8 blocked, ${way}: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
}
