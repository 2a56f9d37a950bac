// The demo's timing chart groups frames that arrive together into chunks (1 frame, then 4 per latent).
import { expect, it } from 'vitest';
import { bursts } from '../../src/demo/timing-view';

it('frames arriving within 25 ms form one chunk; each bar is the time since the previous chunk', () => {
  const arrivals = [900, 1400, 1401, 1402, 1404, 1900, 1902, 1903, 1905];
  expect(bursts(arrivals)).toEqual([
    { first: 0, last: 0, ms: 900 },
    { first: 1, last: 4, ms: 500 },
    { first: 5, last: 8, ms: 496 },
  ]);
  expect(bursts([])).toEqual([]);
});
