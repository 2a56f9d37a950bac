// Public API of wan-vae-webgpu. Everything a user needs, nothing else.
export { WanVaeDecoder, type DecodeOptions, type DecodeResult, type Frame } from './decoder';
export { createDecoder, type DecoderClient } from './worker/client';
export { DecoderError, type DecoderErrorCode } from './gpu/errors';
export { requestDecoderDevice } from './gpu/device';
export { parseLatents, parseStats, readLatents, type Latents } from './model/latents';
export { loadWeights, openWeights, Weights, type WeightLoadStats, type WeightsProgress } from './model/weights';
export { bytesSource, blobSource, urlSource, type WeightSource } from './model/weight-source';
export { inferConfig, framesFor, type DecoderConfig } from './model/config';
export { officialStats, type LatentStats } from './model/stats';
export { plan, type Plan, type PlanOptions, type MemoryBreakdown } from './plan/planner';
export { fitPlan, type Fit, type FitRequest } from './plan/auto';
export type { ModelInfo, PlanInfo, FitInfo, WorkerDecodeOptions, WorkerDecodeResult } from './worker/protocol';
export { syntheticWeights, syntheticLatents, OFFICIAL } from './model/synthetic';
export { embeddedDefault, defaultWeights, defaultLatents } from './model/default-model';
export { writeNpy, parseNpy } from './model/npy';
