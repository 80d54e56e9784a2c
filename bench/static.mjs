// A static file server for the bench pages, on 127.0.0.1 (a free port):
//   const server = await serveStatic({ '/': dir, '/pkg/': pkgDir }, { delayMs })
// serves each URL prefix from its directory; `delayMs` is waited before every response (a stand-in
// for a network's round trip). `server.url` is its origin; `await server.stop()` closes it.
import { createServer } from 'node:http';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
};

export async function serveStatic(routes, { delayMs = 0 } = {}) {
  // Longest prefix first, so that /pkg/ wins over /.
  const prefixes = Object.keys(routes).sort((a, b) => b.length - a.length);
  const server = createServer(async (req, res) => {
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const prefix = prefixes.find((p) => path.startsWith(p));
    const root = routes[prefix];
    const file = normalize(join(root, path.slice(prefix.length)));
    if (!file.startsWith(normalize(root + sep))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
