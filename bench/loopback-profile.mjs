// Where a call's time goes on a real connection: createPlant through a client against the reference
// server on loopback, beside the bare hand-written call (bench.mjs's throughput row: a new plant per
// call, 32 in flight), each sampled by V8's CPU profiler in this one process, rounds in ABBA order
// after a warm-up of each. Every sample is charged to the code it was in (V8 charges the builtins
// and runtime functions a JS function calls to it, and places inlined functions where they were
// written): this package's JS and its .wasm, undici (Node's fetch), Node's web streams, its
// AbortSignal and EventTarget, its timers, its sockets and streams, the garbage collector, the event
// loop outside JS ("program"). Printed in µs of the main thread per call, each side and the
// difference, with each side's CPU per call (every thread) and time per call. Figures, not pass/fail.
//   node bench/loopback-profile.mjs [PKG_DIR]      (bench/run builds the package and the server first)
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, TOKEN, ROOT } from '../tests/js/support/server.mjs';

const PKG = resolve(process.argv[2] ?? join(ROOT, 'pkg'));
const N = 4000;
const C = 32;
const ROUNDS = 4;

const api = await import(pathToFileURL(join(PKG, 'node.mjs')).href);
const server = await startServer();
const session = new Session();
session.connect();
const ids = { next: Date.now() * 1000 };
const client = new api.PlantStoreClient({ baseUrl: server.url, token: TOKEN });
const sides = {
  ours: (i) => client.createPlant({ id: i, name: 'Fern' }),
  bare: async (i) => {
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify({ id: i, name: 'Fern' }),
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return response.json();
  },
};

/** N calls of `call`, C in flight. */
async function round(call) {
  let left = N;
  const inFlight = async () => {
    while (left-- > 0) await call(++ids.next);
  };
  await Promise.all(Array.from({ length: C }, inFlight));
}

/** One profiled round of `side`: its profile, CPU and wall time. */
async function profiled(side) {
  await session.post('Profiler.start');
  const [cpu, wall] = [process.cpuUsage(), performance.now()];
  await round(sides[side]);
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - wall;
  const { profile } = await session.post('Profiler.stop');
  return { profile, cpuUs: used.user + used.system, wallUs: ms * 1000 };
}

/** What a sample's frame is charged to. */
function owner({ url, functionName }, ourWasm) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('wasm://')) return ourWasm.has(url) ? 'this package: .wasm' : 'undici';
  if (url.startsWith(pathToFileURL(PKG).href)) return 'this package: JS';
  if (url.includes('undici')) return 'undici';
  // Node 20 makes each ReadableStream transferable (js_transferable): a web stream's cost.
  if (/webstreams|js_transferable/.test(url)) return 'Node: web streams';
  if (/abort_controller|event_target|node:events/.test(url))
    return 'Node: AbortSignal, EventTarget';
  if (url.includes('timers')) return 'Node: timers';
  if (/streams\/|node:net|stream_base|node:buffer/.test(url)) return 'Node: sockets and streams';
  if (url.startsWith('node:')) return 'Node: other';
  return 'the bench loop';
}

/** µs of samples per call, by owner. */
function charge(profile, ourWasm, totals) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((id, i) => {
    const key = owner(nodes.get(id).callFrame, ourWasm);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / N / ROUNDS);
  });
}

const runs = { ours: [], bare: [] };
try {
  await round(sides.ours);
  await round(sides.bare);
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  for (let r = 0; r < ROUNDS; r++)
    for (const side of r % 2 ? ['bare', 'ours'] : ['ours', 'bare'])
      runs[side].push(await profiled(side));
} finally {
  session.disconnect();
  await server.stop();
}

// undici's llhttp is a .wasm too: the package's is the one the bare call never runs.
const urls = (side) =>
  new Set(runs[side].flatMap((r) => r.profile.nodes.map((n) => n.callFrame.url)));
const bareUrls = urls('bare');
const ourWasm = new Set(
  [...urls('ours')].filter((u) => u.startsWith('wasm://') && !bareUrls.has(u)),
);
const totals = { ours: new Map(), bare: new Map() };
for (const side of ['ours', 'bare'])
  for (const run of runs[side]) charge(run.profile, ourWasm, totals[side]);
const perCall = (side, key) => runs[side].reduce((sum, r) => sum + r[key], 0) / N / ROUNDS;

console.log(
  `where a call's time goes, Node ${process.version}, reference server on loopback, ${ROUNDS} ABBA rounds of ${N} calls at ${C} in flight (bench/loopback-profile.mjs)`,
);
const rows = [...new Set([...totals.ours.keys(), ...totals.bare.keys()])]
  .filter((key) => key !== '(idle)')
  .map((key) => [key, totals.ours.get(key) ?? 0, totals.bare.get(key) ?? 0])
  .sort((a, b) => b[1] - b[2] - (a[1] - a[2]));
const sum = (i) => rows.reduce((s, row) => s + row[i], 0);
const width = Math.max(...rows.map(([key]) => key.length));
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
const line = (what, a, b) =>
  console.log(
    `  ${what.padEnd(width)}  ${a.toFixed(1).padStart(7)}  ${b.toFixed(1).padStart(7)}  ${signed(a - b).padStart(7)}`,
  );
console.log(`  ${'µs per call, main thread'.padEnd(width)}     ours     bare  ours − bare`);
for (const [key, a, b] of rows) line(key, a, b);
line('all the main thread sampled', sum(1), sum(2));
line('CPU, every thread (process.cpuUsage)', perCall('ours', 'cpuUs'), perCall('bare', 'cpuUs'));
line('wall time per call', perCall('ours', 'wallUs'), perCall('bare', 'wallUs'));
const ratios = runs.ours.map((r, i) => r.wallUs / runs.bare[i].wallUs).sort((a, b) => a - b);
const median = (ratios[(ROUNDS - 1) >> 1] + ratios[ROUNDS >> 1]) / 2;
console.log(`  time per call, ours / bare, median of the paired rounds: ${median.toFixed(2)}x`);
