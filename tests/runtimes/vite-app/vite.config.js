// A Vite app using the package: index.html on the main thread, worker.html through module Workers.
// (A plain object rather than defineConfig(): the scratch copy builds with the repository's vite.)
import { resolve } from 'node:path';

export default {
  root: import.meta.dirname,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
        worker: resolve(import.meta.dirname, 'worker.html'),
      },
    },
  },
  // The default entry loads the wasm with top-level await, which needs ES module workers.
  worker: { format: 'es' },
};
