// One variant of the price list beside the base build, in a fresh Node process (bench/price.mjs runs it):
//   node bench/price-node.mjs BASE_PKG VARIANT_PKG SERVER_URL [variant-first]
// The two builds are imported in that order, base first unless `variant-first` (bench/price.mjs runs
// both orders, since the order of two identical builds moves their ratio by a few percent).
// prints { inMemory, loopback } as JSON, both variant against base in the same process, ABBA rounds:
// - inMemory: createPlant with the in-memory fetch (bench/overhead.js measureVariant): µs per call of
//   each and the median paired ratio variant/base;
// - loopback: calls per second against the reference server on loopback, 2000 calls at 32 in flight
//   per round: the median of each, and the median paired ratio of times variant/base.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureVariant, abba, median, callsPerSecond } from './overhead.js';

const [basePkg, variantPkg, server, order] = process.argv.slice(2);
const TOKEN = 'test-token-0123';
const load = (pkg) => import(pathToFileURL(join(pkg, 'node.mjs')).href);
const first = await load(order === 'variant-first' ? variantPkg : basePkg);
const second = await load(order === 'variant-first' ? basePkg : variantPkg);
const [base, variant] = order === 'variant-first' ? [second, first] : [first, second];
const inMemory = await measureVariant(base, variant, { rounds: 16, perRound: 2000 });

const N = 2000;
const C = 32;
const ids = { next: Date.now() * 1000 + Math.floor(Math.random() * 1000) * 1_000_000 };
const rate = (call) => callsPerSecond(call, { n: N, inFlight: C, ids });
const caller = (api) => {
  const client = new api.PlantStoreClient({ baseUrl: server, token: TOKEN });
  return (i) => client.createPlant({ id: i, name: 'Fern' });
};
const { as, bs } = await abba(
  () => rate(caller(variant)),
  () => rate(caller(base)),
  8,
);
const loopback = {
  variant: median(as),
  base: median(bs),
  ratio: median(as.map((a, i) => bs[i] / a)),
};
console.log(JSON.stringify({ inMemory, loopback }));
