// Rollup 4 resolves bare imports only with @rollup/plugin-node-resolve; the .wasm it does not emit
// is copied next to the bundle (tests/js/bundlers.test.mjs).
import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: 'web/index.js',
  output: { dir: 'out/rollup', format: 'es' },
  plugins: [nodeResolve()],
};
