// Files served on loopback to the browser pages of the JS suites.
import http from 'node:http';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/**
 * Answers `res` with the file at `path` under `root`, typed by its extension; `headers` are added
 * (or replace the type). 404 for a path outside `root` or a file that is not there.
 */
export function sendFile(res, root, path, headers = {}) {
  const file = normalize(join(root, decodeURIComponent(path)));
  if (!file.startsWith(`${root}/`) || !existsSync(file) || !extname(file))
    return res.writeHead(404).end();
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    ...headers,
  });
  res.end(readFileSync(file));
}

/**
 * Serves on loopback, on its own origin, a page at `/` whose module script is `script`, and the
 * unpacked package under `/package/` from `dir/package`. Returns `{ url, stop }`.
 */
export async function startPackagePage(dir, script) {
  const page = `<!doctype html><meta charset="utf-8"><script type="module">${script}</script>`;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (!path.startsWith('/package/')) return res.writeHead(404).end();
    sendFile(res, join(dir, 'package'), path.slice('/package/'.length));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}/`, stop: () => server.close() };
}
