// The owners of GPU memory as the planner and the arena count them, with one colour each (shared by
// the plan table and the memory chart).

export const OWNERS = ['weights', 'cache', 'activations', 'store', 'io', 'staging', 'uniforms'] as const;
export type Owner = (typeof OWNERS)[number];

export const OWNER_COLOR: Record<Owner, string> = {
  weights: '#4ea1ff',
  cache: '#b48cff',
  activations: '#4cc38a',
  store: '#e06c9f',
  io: '#e5a84b',
  staging: '#ff8a65',
  uniforms: '#9aa5b1',
};

export const OWNER_HELP: Record<Owner, string> = {
  weights: 'the model itself (its parameters)',
  cache: 'what the decoder remembers of the last frames, so each frame follows the one before (2 frames per layer that needs them)',
  activations: 'working memory of the layers, reused as the decode goes',
  store: "tiles in tile-major order: every frame's half-way result, kept until the last tile is done",
  io: 'the latent frame going in, the RGB frames coming out',
  staging: 'where frames are copied so the page can read them',
  uniforms: 'small settings of each GPU step',
};
