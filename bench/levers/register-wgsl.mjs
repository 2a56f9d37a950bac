// `node --import tsx --import ./bench/levers/register-wgsl.mjs FILE.ts`: TypeScript that imports the
// shaders (`*.wgsl?raw`, as Vite does) run in plain Node, for the planning scripts of this folder.
import { register } from 'node:module';
register('./wgsl-loader.mjs', import.meta.url);
