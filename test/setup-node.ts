// vitest `node` project setup: WebGPU through Dawn (npm `webgpu`) as navigator.gpu, lavapipe ICD by default.
import { installNodeWebGPU } from '../src/node/install-webgpu';

await installNodeWebGPU();
