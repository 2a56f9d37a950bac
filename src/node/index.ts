// Node entry of the package (`wan-vae-webgpu/node`): the whole public API plus installNodeWebGPU, which
// exposes Dawn (the optional peer dependency `webgpu`, loaded only here, on the first call) as
// `navigator.gpu`. Decode in-process with WanVaeDecoder: Node has no Web Worker for createDecoder.
export * from '../index';
export { installNodeWebGPU } from './install-webgpu';
export { fileSource, type FileSource } from './file-source';
export { DecoderPool, listAdapters, type PoolResult } from './pool';
export { createTrainedDecoder, trainedDefault, trainedDefaultBytes, trainedModelUrls } from '../model/trained';
