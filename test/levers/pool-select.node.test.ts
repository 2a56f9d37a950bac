// DecoderPool's adapter selection (src/node/pool.ts): two members named alike would both land on the first
// GPU of that name (Dawn's `adapter=` flag takes the first match), which would make a two-GPU pool a
// one-GPU pool that uploads the weights twice to one device. The pool refuses that with a one-line error
// pointing at the PCI selection; a malformed PCI selection is refused too. A pool that dropped
// checkDistinct (or accepted duplicates) fails the first two cases.
import { describe, expect, it } from 'vitest';
import { checkDistinct, DecoderPool } from '../../src/node/pool';
import { syntheticWeights } from '../../src/model/synthetic';

describe('DecoderPool adapter selection', () => {
  it('refuses one adapter name twice, naming it and the PCI form', () => {
    expect(() => checkDistinct(['NVIDIA H200', 'NVIDIA H200'])).toThrow(/adapter 'NVIDIA H200' is named twice.*pci-0000_18_00_0/);
  });
  it('refuses it before any device is created', async () => {
    const weights = syntheticWeights({ version: '2.1', dim: 4, zDim: 4, seed: 1 });
    await expect(DecoderPool.create(weights, { adapters: ['llvmpipe', 'llvmpipe'] })).rejects.toThrow(/named twice/);
  });
  it('accepts distinct names and well-formed PCI selections, refuses malformed ones', () => {
    expect(() => checkDistinct(['pci-0000_18_00_0', 'pci-0000_2a_00_0', 'llvmpipe'])).not.toThrow();
    expect(() => checkDistinct(['pci-0000:18:00.0'])).toThrow(/pci-DDDD_BB_SS_F/);
    expect(() => checkDistinct(['pci-0000_18_00_0', 'pci-0000_18_00_0'])).toThrow(/named twice/);
    expect(() => checkDistinct(['llvmpipe', 'llvmpipe'], true)).not.toThrow(); // allowSameAdapter: two instances of one adapter
  });
});
