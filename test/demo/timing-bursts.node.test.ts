// The demo's timing chart groups frames into the chunks the decoder makes (1 frame, then 4 per latent frame).
import { expect, it } from 'vitest';
import { bursts } from '../../src/demo/timing-view';

it('frames group by latent frame (1, then 4 each); each bar is the time from the end of the previous chunk to the end of its own', () => {
  const arrivals = [900, 1400, 1401, 1402, 1404, 1900, 1902, 1903, 1905];
  expect(bursts(arrivals)).toEqual([
    { first: 0, last: 0, ms: 900 },
    { first: 1, last: 4, ms: 504 },
    { first: 5, last: 8, ms: 501 },
  ]);
  expect(bursts([])).toEqual([]);
});

it('a slow adapter whose frames of one chunk arrive 60 ms apart still gives one bar per chunk', () => {
  // 3 latent frames -> 9 video frames; the frames of each chunk 60 ms apart (the 25 ms gap rule split these)
  const arrivals = [1000, 2000, 2060, 2120, 2180, 3000, 3060, 3120, 3180];
  const c = bursts(arrivals);
  expect(c.map((x) => [x.first, x.last])).toEqual([
    [0, 0],
    [1, 4],
    [5, 8],
  ]);
  expect(c.map((x) => x.ms)).toEqual([1000, 1180, 1000]);
});

it('a decode stopped inside a chunk keeps the frames that came as a shorter last chunk', () => {
  expect(bursts([500, 900, 910]).map((x) => [x.first, x.last, x.ms])).toEqual([
    [0, 0, 500],
    [1, 2, 410],
  ]);
});
