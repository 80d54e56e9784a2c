// Files served on loopback to the browser pages of the JS suites.
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json',
};

/**
 * Answers `res` with the file at `path` under `root`, typed by its extension; `headers` are added
 * (or replace the type). 404 for a path outside `root` or a file that is not there.
 */
export function sendFile(res, root, path, headers = {}) {
  const file = normalize(join(root, decodeURIComponent(path)));
  if (!file.startsWith(root + '/') || !existsSync(file) || !extname(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...headers });
  res.end(readFileSync(file));
}
