// Segments.submit (src/runtime/exec/weight-stream.ts): the order of the weight uploads and the submissions of
// one program run's segments. A group's upload goes one segment ahead where its ring slot is not the one the
// segment before reads, else right before its own segment; every upload comes after the submission of every
// segment that reads the slot's previous group. The decode tests (test/levers/weight-stream, stream-cancel)
// check the frames and the bytes uploaded; this checks the order itself, with a recording device and stream
// (no GPU: the order is the whole of what is tested).
import { describe, expect, it } from 'vitest';
import { Segments, type WeightStream } from '../../src/runtime/exec/weight-stream';

/** a device whose encoders finish into their labels and whose queue records what is submitted, and a ring of `slots` */
function fakes(slots: number) {
  const events: string[] = [];
  const held = new Array<number>(slots).fill(-1);
  const device = {
    createCommandEncoder: ({ label }: { label: string }) => ({ finish: () => label }),
    queue: { submit: (bufs: string[]) => events.push(`submit ${bufs.map((b) => b.replace(/^run( weights group )?/, '') || 'first').join(',')}`) },
  } as unknown as GPUDevice;
  const stream = {
    slotOf: (g: number) => g % slots,
    holds: (g: number) => held[g % slots] === g,
    ensure: async (g: number) => {
      if (held[g % slots] === g) return;
      events.push(`upload ${g}`);
      held[g % slots] = g;
    },
  } as unknown as WeightStream;
  return { events, held, device, stream };
}

/** the segments of one run reading `groups` in turn (the step encoder's split per change of group) */
function record(device: GPUDevice, stream: WeightStream, groups: number[]): Segments {
  const segs = new Segments(device, 'run', stream);
  for (const g of groups) segs.split!(g);
  return segs;
}

/** replays the events: each segment finds its group in its slot when it is submitted (an upload that went in
 * before a segment reading the slot's previous group was submitted would fail this) */
function checkHazards(events: string[], slots: number) {
  const inSlot = new Array<number>(slots).fill(-1);
  for (const e of events) {
    const [what, arg] = e.split(' ') as [string, string];
    if (what === 'upload') {
      const g = Number(arg);
      inSlot[g % slots] = g;
    } else
      for (const seg of arg.split(',')) {
        if (seg === 'first') continue;
        const g = Number(seg);
        // the segment reads group g: it must be in its slot when the segment is submitted
        expect(inSlot[g % slots], `${e}: group ${g} not in slot ${g % slots}`).toBe(g);
      }
  }
}

describe('Segments.submit: uploads one segment ahead', () => {
  it('3 slots, groups 0-3 from an empty ring: each upload before the segment before its own', async () => {
    const { events, device, stream } = fakes(3);
    await record(device, stream, [0, 1, 2, 3]).submit();
    expect(events).toEqual(['upload 0', 'submit first', 'upload 1', 'submit 0', 'upload 2', 'submit 1', 'upload 3', 'submit 2,3']);
    checkHazards(events, 3);
  });

  it('2 slots: group 2 overwrites slot 0 only after the segment reading group 0 is submitted', async () => {
    const { events, device, stream } = fakes(2);
    await record(device, stream, [0, 1, 2, 3]).submit();
    expect(events).toEqual(['upload 0', 'submit first', 'upload 1', 'submit 0', 'upload 2', 'submit 1', 'upload 3', 'submit 2,3']);
    checkHazards(events, 2);
  });

  it('the next group in the same slot as this one: uploaded right before its own segment', async () => {
    const { events, device, stream } = fakes(2);
    await record(device, stream, [0, 2]).submit();
    expect(events).toEqual(['upload 0', 'submit first,0', 'upload 2', 'submit 2']);
    checkHazards(events, 2);
  });

  it('groups held already: no uploads, the whole run in one submission', async () => {
    const { events, held, device, stream } = fakes(3);
    held.splice(0, 3, 0, 1, 2);
    await record(device, stream, [0, 1, 2]).submit();
    expect(events).toEqual(['submit first,0,1,2']);
  });

  it('a ring of 1: every upload right before its segment', async () => {
    const { events, device, stream } = fakes(1);
    await record(device, stream, [0, 1]).submit();
    expect(events).toEqual(['upload 0', 'submit first,0', 'upload 1', 'submit 1']);
    checkHazards(events, 1);
  });
});
