// webpack 5, nothing special for the package: `npx webpack` (here run through webpack's API).
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export default {
  mode: 'production',
  context: here,
  entry: './src/index.js',
  output: { path: resolve(here, 'dist'), filename: 'main.js', publicPath: 'auto', clean: true },
};
