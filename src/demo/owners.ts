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
  weights: 'decoder parameters',
  cache: 'causal feature cache (2 frames per cached conv)',
  activations: 'reused transient slots (liveness planned)',
  store: 'tile-major tiling: latent-rate output of every latent frame',
  io: 'latent frame in, RGB / RGBA frames out',
  staging: 'read-back buffer for frames',
  uniforms: 'kernel parameters',
};
