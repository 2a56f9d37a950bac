// ESLint (flat config): typescript-eslint's recommended rules over src/, bench/, test/ and scripts, with
// the settings the code meets as it is written (no formatting rules: Prettier's .prettierrc holds those).
// Run by test/structure/lint.test.ts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', '.gpu-bundle/**', '.h200*/**', 'models/train/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        console: 'readonly',
        process: 'readonly',
        performance: 'readonly',
        navigator: 'readonly',
        window: 'readonly',
        document: 'readonly',
        self: 'readonly',
        globalThis: 'readonly',
        GPUBufferUsage: 'readonly',
        GPUMapMode: 'readonly',
        GPUShaderStage: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      // unused names are caught by tsc (noUnusedLocals where set); `_`-prefixed parameters are deliberate
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // casts through any at the WebGPU / worker boundaries are deliberate and commented
      '@typescript-eslint/no-explicit-any': 'off',
      // expression statements such as `cond && f()` and `(a++, b = 0)` are the code's style in hot loops
      '@typescript-eslint/no-unused-expressions': 'off',
      // TypeScript checks undefined names (and knows the DOM / WebGPU / Node globals)
      'no-undef': 'off',
      // a throw in `finally` after popping WebGPU error scopes is how a scope's error replaces the result (gpu/errors.ts, test/helpers/gpu.ts)
      'no-unsafe-finally': 'off',
      // option texts are checked for control characters on purpose (options/check.ts)
      'no-control-regex': 'off',
    },
  },
);
