// Starts the reference server (target/release/plant-store-server) on a free loopback port for a
// JS-side test, and stops it. Build it first: `cargo build --release -p plant-store-server`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const TOKEN = 'test-token-0123';
/** The built package: $PKG_DIR (set by scripts/test), else pkg/. */
export const PKG = process.env.PKG_DIR ?? join(ROOT, 'pkg');

/** @returns {Promise<{ url: string, stop: () => Promise<void>, stats: () => Promise<{requests: number, plants: number, keys: number}>, json: (path: string) => Promise<any>, stored: (id: string) => Promise<any> }>} */
export async function startServer({ token = TOKEN, testRoutes = true, www, pkg, port = 0 } = {}) {
  const args = ['--port', String(port), '--token', token];
  if (testRoutes) args.push('--test-routes');
  if (www) args.push('--www', www);
  if (pkg) args.push('--pkg', pkg);
  const child = spawn(join(ROOT, 'target/release/plant-store-server'), args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the server did not start within 60 s')),
      60_000,
    );
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const json = async (path) => (await fetch(url + path)).json();
  return {
    url,
    json,
    stats: () => json('/__test/stats'),
    /** The plant `id` once the server has stored it (`/__test/plants/{id}` answers 404 until then); 30 s at most. */
    stored: async (id) => {
      for (
        const deadline = Date.now() + 30_000;
        Date.now() < deadline;
        await new Promise((resolve) => setTimeout(resolve, 50))
      ) {
        const response = await fetch(`${url}/__test/plants/${id}`);
        if (response.ok) return response.json();
      }
      throw new Error(`the server did not store plant ${id} within 30 s`);
    },
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  };
}
