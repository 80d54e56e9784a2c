// A loopback HTTP proxy in front of a server, for a browser that cannot be set offline (WebKitGTK
// through WebDriver): `cut()` destroys every connection, open or new, until `restore()` (each
// answer closes its connection, so every request after the cut meets it); and it records each POST
// it passes on, with its Idempotency-Key, so that a suite counts what reached the wire. node:http,
// as the few lines it takes need no library.
import http from 'node:http';
import { once } from 'node:events';

/**
 * Starts the proxy to `target` (an http://127.0.0.1:port URL). Returns `{ url, posts, refused, cut,
 * restore, stop }`: `posts` lists `{ path, id, key }` per POST passed on (`key` without its quotes),
 * `refused` counts the connections destroyed while cut.
 */
export async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  const posts = [];
  let cut = false;
  const proxy = {
    url: '',
    posts,
    refused: 0,
    /** From now on until `restore()`, every connection is destroyed, the open ones at once. */
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (req.method === 'POST') {
      const key = req.headers['idempotency-key'];
      // The key is a Structured Fields string: in quotes.
      posts.push({ path: req.url, id: String(parsed(body)?.id), key: key && parsed(key) });
    }
    const upstream = http.request(
      { hostname, port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        // No connection outlives its answer: a request after `cut()` always needs a new one, which
        // is refused and counted (a kept-alive one, destroyed by the cut, could fail the browser's
        // next request unseen).
        const { 'keep-alive': _, ...headers } = answer.headers;
        res.writeHead(answer.statusCode, { ...headers, connection: 'close' });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    // A page that goes away before its answer: the server sees its connection close, as it would
    // without the proxy.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
  server.on('connection', (socket) => {
    if (cut) {
      proxy.refused++;
      return socket.destroy();
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.url = `http://127.0.0.1:${server.address().port}`;
  return proxy;
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
