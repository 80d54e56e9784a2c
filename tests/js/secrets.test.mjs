// A property test of the token rule: no text an error exposes holds any 8-character piece of the
// token (a token shorter than 8 characters: not the whole token). A seeded loop builds hostile
// answers that carry the token, whole, cut or JSON-escaped, at random offsets: in 200, 400 and
// other-status bodies, across the excerpt's cut and the read limits, in one chunk or in many. Each
// is answered by an injected fetch to a real createPlant of the built package (node.mjs), and every
// exposed text of the error is searched: message, String(err), stack, JSON.stringify(err),
// util.inspect(err), its cause and each issue (tests/js/support/leaks.mjs).
//   PKG_DIR=pkg node --test tests/js/secrets.test.mjs        (SECRETS_SEED=n to replay one seed)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PKG } from './support/server.mjs';
import { leak } from './support/leaks.mjs';

const SEED = Number(process.env.SECRETS_SEED ?? 0x5eed5);
const CASES = Number(process.env.SECRETS_CASES ?? 600);

/** xorshift32: the same cases for the same seed. */
function random(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  return {
    below: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/';

/** A bearer token (RFC 6750 b64token) of 4 to 300 characters. */
function makeToken(r) {
  const length = r.pick([4, 7, 8, 9, 12, 22, 32, 64, 300]);
  let token = r.pick([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz']);
  while (token.length < length) token += r.pick([...B64]);
  return r.chance(0.2) ? `${token.slice(0, -1)}=` : token;
}

/** The token as it appears in a body: whole, or with some characters JSON-escaped. */
function written(r, token, inString) {
  if (!inString || r.chance(0.5)) return token;
  const p = r.pick([0.1, 0.5, 1]);
  return [...token]
    .map((c) => {
      if (c === '/' && r.chance(0.5)) return '\\/';
      return r.chance(p) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
    })
    .join('');
}

/**
 * Offsets where the token starts: near the start, across the 300-character excerpt cut, across
 * the read limits (4 KiB and 64 KiB for an error, 1 MiB for a 200; the token may run past the
 * limit), or anywhere up to 70,000.
 */
function offset(r, status) {
  const limits = status === 200 ? [4096, 65_536, 1 << 20] : [4096, 65_536];
  switch (r.below(4)) {
    case 0:
      return r.below(40);
    case 1:
      return 260 + r.below(60);
    case 2:
      return r.pick(limits) - r.below(40) + 2;
    default:
      return r.below(70_000);
  }
}

/** One hostile answer carrying `token`. */
function makeCase(r, token) {
  const status = r.pick([200, 200, 400, 400, 401, 403, 404, 418, 500, 503]);
  const at = offset(r, status);
  const pad = (n) => (r.chance(0.5) ? ' ' : 'x').repeat(n);
  const tail = r.chance(0.5) ? '' : ' and more';
  let body;
  switch (r.below(6)) {
    case 0: // plain text
      body = pad(at) + written(r, token, false) + tail;
      break;
    case 1: // an Error whose message quotes the token
      body = `{"error":${r.below(10)},"message":"${pad(Math.max(0, at - 30))}${written(r, token, true)}${tail}"}`;
      break;
    case 2: // a broken Plant that quotes the token
      body = `{"name":${r.chance(0.5) ? 5 : 'null'},"tag":"${pad(Math.max(0, at - 20))}${written(r, token, true)}"}`;
      break;
    case 3: // the token bare inside JSON: not JSON
      body = `{"name":${pad(Math.max(0, at - 10))}${token}${tail}}`;
      break;
    case 4: // the body is the token
      body = token;
      break;
    default: // the token as a member name
      body = `{"${pad(Math.max(0, at - 2))}${written(r, token, true)}":1,"error":1,"message":"m"}`;
  }
  const chunks = r.chance(0.5) ? null : r.pick([1, 7, 64, 1000, 16_384]);
  return { status, body, chunks };
}

/** A Response for `c`: its body in one chunk, or in chunks of `c.chunks` bytes. */
function respond(c) {
  const bytes = new TextEncoder().encode(c.body);
  if (c.chunks === null || bytes.length === 0) return new Response(bytes, { status: c.status });
  let at = 0;
  const stream = new ReadableStream(
    {
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + c.chunks));
        at += c.chunks;
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: c.status });
}

test(`no piece of the token in any text an error exposes: ${CASES} seeded hostile answers (seed ${SEED})`, {
  timeout: 300_000,
}, async () => {
  const api = await import(pathToFileURL(join(PKG, 'node.mjs')).href);
  const r = random(SEED);
  const leaks = [];
  let failed = 0;
  for (let i = 0; i < CASES; i++) {
    const token = makeToken(r);
    const c = makeCase(r, token);
    const options = { baseUrl: 'https://plants.example/api', token, fetch: async () => respond(c) };
    let err;
    try {
      await api.createPlant({ id: i, name: 'Fern' }, options);
      continue;
    } catch (e) {
      err = e;
    }
    failed++;
    assert.ok(api.PlantStoreError.is(err), `case ${i}: not a PlantStoreError: ${err}`);
    const found = leak(err, token);
    if (found) {
      leaks.push(
        `case ${i} (status ${c.status}, ${c.body.length} bytes, ${c.chunks ?? 'one'} chunk${c.chunks ? ' bytes' : ''}): ` +
          `"${found.piece}" in ${found.where}: ${found.text.slice(0, 160)}`,
      );
    }
  }
  console.log(
    `secrets: ${CASES} cases, ${failed} errors searched, ${leaks.length} with a piece of the token`,
  );
  assert.deepEqual(leaks.slice(0, 10), [], `${leaks.length} errors expose a piece of the token`);
});
