// The caption under the player: what the frames on screen are (or will be, before a decode): the generated
// model's coloured noise, a sample of the trained model, or latents decoded with weights the user opened.
// It follows the decode that is shown, not the last model loaded.

export interface CaptionSubject {
  /** the model is the generated default (random weights) */
  generated: boolean;
  /** the model's name (its file or URL) */
  model: string;
  /** the latents' name ('default': the generated latents) */
  latents: string;
  /** the trained-model sample's sentence, when the latents are one of its samples */
  sample: string | null;
  /** a decode of these is on screen (false: nothing decoded yet with them) */
  decoded: boolean;
}

/** `what`: the sentence; `hint`: show the pointer to real weights and the samples (the generated model's noise only). */
export function captionFor(s: CaptionSubject): { what: string; hint: boolean } {
  const latents = s.latents === 'default' ? 'the generated latents' : s.latents;
  if (s.generated)
    return {
      what: `${s.decoded ? `Shown: ${latents} decoded with the generated model. ` : ''}The generated default is a tiny Wan2.1-shaped decoder with random weights: its video is coloured noise, by design.`,
      hint: true,
    };
  if (s.sample) return { what: `${s.decoded ? 'Shown: ' : 'Loaded: '}${s.sample}`, hint: false };
  return {
    what: s.decoded ? `Shown: ${latents} decoded with ${s.model}.` : `Loaded: ${s.model} and ${latents}. Press Decode to see the video.`,
    hint: false,
  };
}
