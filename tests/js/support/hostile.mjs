// Hostile servers for issue 22, on loopback, for tests/js/hostile.test.mjs (its calls run in Node
// and in Chromium): compression bombs, endless, oversized and dripping bodies, resets, 1xx heads,
// and servers that send the token back. What a client must make of each is in that test's CASES;
// this is the server side.
//
// Every answer is generated as it is sent, with backpressure: a bomb is one small compressed block
// repeated (about 1 KiB for each MiB it decodes to), never a gigabyte in memory. Every answer stops
// by itself: when the client hangs up, or at a cap of time and bytes, whichever comes first. The
// server answers CORS preflights, so a page of another origin can call it, and listens on
// 127.0.0.1 only, on `ports` ports (each its own origin: a browser keeps 6 connections per origin).
//
// Routes: POST /<name>[/<arg>]/plants, the client's `{baseUrl}/plants` with baseUrl = `${url}/<name>`.
import http from 'node:http';
import zlib from 'node:zlib';
import { once } from 'node:events';

/**
 * What a bomb decodes to at most, and what an endless body sends at most, before it ends by itself.
 * 16 GiB decoded is ~32 MB of gzip or deflate: more than loopback's socket buffers take, so the
 * server meets backpressure and sees the client hang up. At 1 GiB (~2 MB) a loaded machine could
 * write the whole bomb into the buffers before the client read its first 64 KiB.
 */
export const BOMB_DECODED_CAP = 2 ** 34;
const ENDLESS_CAP = 256 << 20;
/** No answer lasts longer than this, whatever the client does. */
const TIME_CAP_MS = 30_000;
/** One block of a bomb decodes to about this many bytes. */
const BLOCK = 1 << 20;

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-allow-methods': 'POST',
  'access-control-max-age': '600',
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `res` can take more, or has closed (then `res.destroyed` is true). */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Adler-32 of `bytes`, continuing from `adler` (zlib's format, for `content-encoding: deflate`). */
function adler32(bytes, adler = 1) {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  for (let i = 0; i < bytes.length; ) {
    const end = Math.min(i + 3800, bytes.length);
    for (; i < end; i++) {
      a += bytes[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of A followed by B, from adler32(A), adler32(B) and B's length (zlib's adler32_combine). */
function adler32Combine(adler1, adler2, len2) {
  const BASE = 65521;
  const rem = len2 % BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (adler2 & 0xffff) + BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE * 2) sum2 -= BASE * 2;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/** Feeds `input` to a zlib stream and returns what it wrote after a flush of `kind`. */
async function flushed(stream, input, kind) {
  const out = [];
  const onData = (chunk) => out.push(chunk);
  stream.on('data', onData);
  if (input.length) stream.write(input);
  await new Promise((resolve) => stream.flush(kind, resolve));
  // The flush callback runs once the flushed output has been emitted.
  await new Promise((resolve) => setImmediate(resolve));
  stream.off('data', onData);
  return Buffer.concat(out);
}

/**
 * A bomb's parts for `encoding`: `head` (the stream's start and `prefix`, compressed), `block`
 * (BLOCK bytes of `unit` repeated, compressed against a window that already holds them: the same
 * bytes each time, so it can be repeated), and `end(decoded, check)` (the stream's end). Checked
 * here by decoding head + block × 3 + end.
 */
async function bombParts(encoding, prefix, unit) {
  const raw = Buffer.from(unit.repeat(Math.floor(BLOCK / unit.length)));
  const brotli = encoding === 'br';
  const stream = brotli
    ? zlib.createBrotliCompress({
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
          [zlib.constants.BROTLI_PARAM_LGWIN]: 22,
        },
      })
    : zlib.createDeflateRaw({ level: 9 });
  const flush = brotli ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  const start = await flushed(stream, Buffer.from(prefix), flush);
  const first = await flushed(stream, raw, flush);
  const second = await flushed(stream, raw, flush);
  const third = await flushed(stream, raw, flush);
  if (!second.equals(third)) throw new Error(`hostile: the ${encoding} block does not repeat`);
  let tail = Buffer.alloc(0);
  if (brotli) {
    const out = [];
    stream.on('data', (chunk) => out.push(chunk));
    stream.end();
    await once(stream, 'end');
    tail = Buffer.concat(out);
  } else {
    stream.destroy();
  }
  // The head carries the first block too, so that `block` is the steady one.
  const wrap = {
    gzip: {
      head: Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]), start, first]),
      // A final empty fixed-Huffman block, then CRC-32 and the size mod 2^32, little-endian.
      end: (size, crc) => {
        const trailer = Buffer.alloc(8);
        trailer.writeUInt32LE(crc >>> 0, 0);
        trailer.writeUInt32LE(size % 2 ** 32, 4);
        return Buffer.concat([Buffer.from([3, 0]), trailer]);
      },
    },
    deflate: {
      head: Buffer.concat([Buffer.from([0x78, 0xda]), start, first]),
      end: (_size, adler) => {
        const trailer = Buffer.alloc(4);
        trailer.writeUInt32BE(adler >>> 0, 0);
        return Buffer.concat([Buffer.from([3, 0]), trailer]);
      },
    },
    br: { head: Buffer.concat([start, first]), end: () => tail },
  }[encoding];
  const header = {
    gzip: Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]),
    deflate: Buffer.from([0x78, 0xda]),
    br: Buffer.alloc(0),
  }[encoding];
  const parts = {
    encoding,
    prefix: Buffer.from(prefix),
    raw,
    rawAdler: adler32(raw),
    header,
    start,
    head: wrap.head,
    block: second,
    end: wrap.end,
  };
  // Check: head + block × 2 + end decodes to prefix + raw × 3.
  const { head, block, end } = parts;
  const decoded = Buffer.concat([parts.prefix, raw, raw, raw]);
  const check = encoding === 'gzip' ? zlib.crc32(decoded) : adler32(decoded);
  const whole = Buffer.concat([head, block, block, end(decoded.length, check)]);
  const back = { gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync }[
    encoding
  ](whole);
  if (!back.equals(decoded))
    throw new Error(`hostile: the ${encoding} bomb does not decode to what it should`);
  return parts;
}

/** The routes that read the request body (the others let it go unread). */
const READS_BODY = new Set([
  'informational-200',
  'informational-400',
  'informational-503',
  'echo-escaped',
]);

/** The token a request carried (what a server that echoes it has). */
const tokenOf = (req) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');

/**
 * Starts the hostile server. `ports`: how many listeners (origins); `tokens`: the tokens the
 * clients will send, whose bombs are built before the first request (a bomb of another token is
 * built when it is first asked for, which takes a few hundred ms). Returns `{ url, urls, stop,
 * log, open }`: `log` has one entry per request ({ route, status, sent, decoded, closedBy, ms }),
 * `open()` the answers still being sent.
 */
export async function startHostile({ ports = 1, tokens = [] } = {}) {
  const bombs = new Map();
  const bomb = async (encoding, prefix, unit) => {
    const key = `${encoding}\0${prefix}\0${unit}`;
    if (!bombs.has(key)) bombs.set(key, bombParts(encoding, prefix, unit));
    return bombs.get(key);
  };
  const log = [];
  const live = new Set();

  /** Sends `next()` (a Buffer, or null at the end) with backpressure until the client goes. */
  async function pump(res, entry, next) {
    const started = Date.now();
    let written = 0;
    for (;;) {
      if (res.destroyed) {
        entry.closedBy ??= 'client';
        return;
      }
      if (Date.now() - started > TIME_CAP_MS) {
        entry.closedBy = 'time cap';
        res.end();
        return;
      }
      const chunk = next();
      if (chunk === null) {
        entry.closedBy ??= 'end';
        res.end();
        return;
      }
      entry.sent += chunk.length;
      if (!res.write(chunk)) await drained(res);
      // A socket's buffers take many small blocks without backpressure: let the event loop (which
      // a Node suite's client shares) run between them.
      else if (++written % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async function answer(req, res, route, arg, entry) {
    const token = tokenOf(req);
    const bearer = `Bearer ${token}`;
    const status = Number(arg) || 200;
    switch (route) {
      // A compression bomb: `arg` is the status. A 200 starts like a Plant; an error quotes the token.
      case 'gzip':
      case 'deflate':
      case 'br': {
        const prefix = status === 200 ? '{"name":"' : '{"error":1,"message":"';
        const parts = await bomb(route, prefix, `${bearer} `);
        res.writeHead(status, {
          ...CORS,
          'content-type': 'application/json',
          'content-encoding': route,
        });
        let blocks = 0;
        const max = Math.floor(BOMB_DECODED_CAP / parts.raw.length);
        entry.decoded = parts.prefix.length + parts.raw.length;
        let ended = false;
        return pump(res, entry, () => {
          if (blocks === 0) {
            blocks++;
            return parts.head;
          }
          if (blocks < max) {
            blocks++;
            entry.decoded += parts.raw.length;
            return parts.block;
          }
          if (ended) return null;
          ended = true;
          entry.closedBy = 'cap';
          // The check value, needed only here, when a client read it all: CRC-32 (native) for
          // gzip; for deflate the raw block's Adler-32, computed once, combined in (Adler-32 in JS
          // over a GiB would hold the event loop for seconds). br has none.
          let check = route === 'gzip' ? zlib.crc32(parts.prefix) : adler32(parts.prefix);
          for (let i = 0; i < blocks && route !== 'br'; i++) {
            check =
              route === 'gzip'
                ? zlib.crc32(parts.raw, check)
                : adler32Combine(check, parts.rawAdler, parts.raw.length);
          }
          return parts.end(entry.decoded, check);
        });
      }
      // A gzip stream that breaks after its first bytes: a deflate block of the reserved type 3.
      case 'gzip-corrupt': {
        const parts = await bomb(
          'gzip',
          status === 200 ? '{"name":"Fe' : '{"error":1,',
          `${bearer} `,
        );
        res.writeHead(status, {
          ...CORS,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        });
        const chunks = [
          Buffer.concat([parts.header, parts.start]),
          Buffer.from([0x07, 0xff, 0xff, 0xff]),
        ];
        return pump(res, entry, () => chunks.shift() ?? null);
      }
      // An endless chunked body: the token, again and again, 16 KiB at a time.
      case 'endless': {
        res.writeHead(status, { ...CORS, 'content-type': 'text/plain' });
        const chunk = Buffer.from(`${bearer} `.repeat(Math.ceil(16384 / (bearer.length + 1))));
        return pump(res, entry, () => (entry.sent + chunk.length > ENDLESS_CAP ? null : chunk));
      }
      // An answer that says how long it is, longer than any read limit: a Plant of 2 MiB, or an
      // Error of 8 MiB for another status (`arg`).
      case 'oversized': {
        const body = Buffer.alloc(status === 200 ? 2 << 20 : 8 << 20, 'n');
        const json =
          status === 200
            ? Buffer.from('{"name":"')
            : Buffer.from(`{"error":1,"message":"${bearer} `);
        res.writeHead(status, {
          ...CORS,
          'content-type': 'application/json',
          'content-length': json.length + body.length + 2,
        });
        const chunks = [json, body, Buffer.from('"}')];
        return pump(res, entry, () => chunks.shift() ?? null);
      }
      // A body that drips: one byte of the token every `arg` ms (100 by default), for at most 30 s.
      case 'drip': {
        const every = Number(arg) || 100;
        res.writeHead(200, { ...CORS, 'content-type': 'application/json' });
        res.write('{"name":"');
        const started = Date.now();
        for (let i = 0; !res.destroyed && Date.now() - started < TIME_CAP_MS; i++) {
          res.write(bearer[i % bearer.length]);
          entry.sent++;
          await sleep(every);
        }
        entry.closedBy = res.destroyed ? 'client' : 'time cap';
        return res.destroy();
      }
      // A reset (TCP RST) in mid-body: the head says 1000 bytes, 40 or so are sent.
      case 'reset': {
        const body =
          status === 200 ? `{"name":"Fern","tag":"${bearer}` : `{"error":1,"message":"${bearer}`;
        res.writeHead(status, {
          ...CORS,
          'content-type': 'application/json',
          'content-length': '1000',
        });
        res.write(body);
        entry.sent = body.length;
        await sleep(50);
        entry.closedBy = 'reset';
        return res.socket?.resetAndDestroy();
      }
      // 1xx heads before the answer, named by `arg` ("102-103" by default; "100" is an unasked-for
      // 100 Continue, which RFC 9110 says a client must parse, and Node 20's fetch refuses), three
      // rounds of them, then the answer named by the route's end: a Plant, an Error, a 503.
      case 'informational-200':
      case 'informational-400':
      case 'informational-503': {
        const heads = (arg || '102-103').split('-');
        for (let i = 0; i < 3 && !res.destroyed; i++) {
          if (heads.includes('100')) res.writeContinue();
          if (heads.includes('102')) res.writeProcessing();
          if (heads.includes('103'))
            res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
          await sleep(5);
        }
        const body = await readBody(req);
        const { name } = JSON.parse(body);
        const final = route.slice(-3);
        const answers = {
          200: [200, JSON.stringify({ name })],
          400: [400, '{"error":3,"message":"a plant with this id already exists"}'],
          503: [503, '{"error":8,"message":"try later"}'],
        };
        const [code, text] = answers[final];
        res.writeHead(code, { ...CORS, 'content-type': 'application/json' }).end(text);
        entry.closedBy = 'end';
        return;
      }
      // 102 Processing every 100 ms, and never an answer (for at most 30 s).
      case 'informational-forever': {
        const started = Date.now();
        while (!res.destroyed && Date.now() - started < TIME_CAP_MS) {
          res.writeProcessing();
          entry.sent++;
          await sleep(100);
        }
        entry.closedBy = res.destroyed ? 'client' : 'time cap';
        return res.destroy();
      }
      // The token as the answer: the body is the token (`arg` "alone"), the token bare inside JSON
      // ("bare"), or an error whose body is the Authorization header ("401").
      case 'token': {
        const bodies = {
          alone: [200, token],
          bare: [200, `{"name":${token}}`],
          401: [401, bearer],
        };
        const [code, text] = bodies[arg] ?? bodies.alone;
        res.writeHead(code, { ...CORS, 'content-type': 'application/json' }).end(text);
        entry.closedBy = 'end';
        return;
      }
      // The token in the status text and in headers, an Error in the body.
      case 'token-in-head': {
        res
          .writeHead(500, bearer, {
            ...CORS,
            'content-type': 'application/json',
            'x-echo': bearer,
            'www-authenticate': `Bearer error="invalid_token", token="${token}"`,
          })
          .end('{"error":9,"message":"refused"}');
        entry.closedBy = 'end';
        return;
      }
      // The echo of the NewPlant with every byte of its name and tag escaped as \u00XX (six bytes
      // each), padded with spaces to exactly 6 × (their bytes) + 64 KiB + `arg` bytes: the most a
      // client reads of a 200 is 6 × those bytes + 64 KiB.
      case 'echo-escaped': {
        const plant = JSON.parse(await readBody(req));
        const escaped = (s) =>
          [...Buffer.from(s)].map((b) => `\\u00${b.toString(16).padStart(2, '0')}`).join('');
        const members = [`"name":"${escaped(plant.name)}"`];
        if (plant.tag !== undefined) members.push(`"tag":"${escaped(plant.tag)}"`);
        const echoed = Buffer.byteLength(plant.name) + Buffer.byteLength(plant.tag ?? '');
        const size = 6 * echoed + 65_536 + Number(arg || 0);
        const start = `{${members.join(',')}`;
        const body = `${start + ' '.repeat(size - start.length - 1)}}`;
        res.writeHead(200, { ...CORS, 'content-type': 'application/json' });
        const chunks = [Buffer.from(body)];
        return pump(res, entry, () => chunks.shift() ?? null);
      }
      default:
        res.writeHead(404, CORS).end();
        entry.closedBy = 'end';
    }
  }

  const handler = (req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, CORS).end();
    const match = /^\/([a-z0-9-]+)(?:\/([a-z0-9-]+))?\/plants$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) return res.writeHead(404, CORS).end();
    const [, route, arg] = match;
    const entry = {
      route: `${route}${arg ? `/${arg}` : ''}`,
      sent: 0,
      decoded: 0,
      closedBy: undefined,
      ms: 0,
    };
    log.push(entry);
    const started = Date.now();
    live.add(entry);
    res.on('close', () => {
      entry.ms = Date.now() - started;
      live.delete(entry);
    });
    // A route that does not read the body lets it go.
    if (!READS_BODY.has(route)) req.resume();
    answer(req, res, route, arg, entry).catch((err) => {
      entry.closedBy = `server error: ${err.message}`;
      res.destroy();
    });
  };

  const servers = [];
  const urls = [];
  for (let i = 0; i < ports; i++) {
    const server = http.createServer(handler);
    // Keep-alive as browsers expect; no request or header timeout shorter than an answer's cap.
    server.requestTimeout = 0;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    urls.push(`http://127.0.0.1:${server.address().port}`);
  }
  // The bombs of the known tokens, before the first request, so that no call's time includes them.
  for (const token of tokens) {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      for (const prefix of ['{"name":"', '{"error":1,"message":"'])
        bomb(encoding, prefix, `Bearer ${token} `);
    }
  }
  await Promise.all(bombs.values());
  return {
    url: urls[0],
    urls,
    log,
    open: () => [...live],
    stop: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

/** The request body, as text. */
async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
