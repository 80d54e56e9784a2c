// A Vite app using the package: index.html on the main thread, worker.html through a Web Worker,
// each at Vite's defaults. (A plain object rather than defineConfig(): the scratch copy builds with
// the repository's vite.)
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
};
