// Turns wasm-pack's `--target web` output in pkg/ into the npm package: one JavaScript file per
// kind of runtime, each a thin loader bundled with the wasm-bindgen glue (so a browser fetches the
// .wasm after one JS request, not after a chain of imports), one .d.ts, and a package.json.
//   node scripts/finish-pkg.mjs [pkg-dir]
//
// The API in every entry is the glue's own exports (createPlant, PlantStoreClient, validateNewPlant,
// PlantStoreError); an entry only loads the .wasm its runtime's way, and adds `init`.
import { readFileSync, writeFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = process.argv[2] ?? join(root, 'pkg');
const glue = './plant_store_client.js';
const wasm = './plant_store_client_bg.wasm';
const API = 'createPlant, validateNewPlant, PlantStoreClient, PlantStoreError';

// A free name that the entries of Deno and workerd use for the compiled module; its import is
// prepended after bundling, because the bundler would drop the `source` phase of Deno's import.
const MODULE = '__plantStoreWasm';
// The same for index.js's early fetch of the .wasm.
const RESPONSE = '__plantStoreWasmResponse';

const loaded = `
/** The wasm module is already loaded on import; this resolves at once (kept for portable code). */
export async function init(source) {}
export { ${API} } from '${glue}';
`;

/** Each entry's source (bundled with the glue) and what is prepended to the bundle. */
const entries = {
  // Browsers and bundlers: the .wasm is an asset found through import.meta.url, instantiated with
  // top-level await before the API is usable. Its fetch is the file's first statement, so it starts
  // as soon as the file runs, before the glue's own code.
  'index.js': {
    prefix: `const ${RESPONSE} = fetch(new URL('${wasm}', import.meta.url));\n`,
    source: `import load from '${glue}';
await load({ module_or_path: ${RESPONSE} });
${loaded}`,
  },
  // No top-level await and no side effect: \`init()\` loads the wasm, once (the glue shares a
  // concurrent load). Until then every export fails with a \`config\` PlantStoreError that says so,
  // not with the glue's TypeError. For service workers and build targets without top-level await.
  'manual.js': {
    source: `import load, { createPlant as create, validateNewPlant as validate, PlantStoreClient as Client, PlantStoreError } from '${glue}';
export { PlantStoreError };
let loaded = false;
const notLoaded = () => new PlantStoreError('config', 'the wasm module is not loaded yet: with plant-store-client/manual, await init() first');

/**
 * Loads and instantiates the wasm module once. \`source\` is the .wasm's URL (default: next to this
 * file), a Response, its bytes, or a compiled WebAssembly.Module. Safe to call twice or concurrently.
 */
export async function init(source) {
  await load({ module_or_path: source ?? new URL('${wasm}', import.meta.url) });
  loaded = true;
}
export function createPlant(plant, options) {
  return loaded ? create(plant, options) : Promise.reject(notLoaded());
}
export function validateNewPlant(plant) {
  if (!loaded) throw notLoaded();
  return validate(plant);
}
export class PlantStoreClient extends Client {
  constructor(options) {
    if (!loaded) throw notLoaded();
    super(options);
  }
}
`,
  },
  // Node: fetch() cannot read file: URLs there, so the bytes are read from disk.
  'node.mjs': {
    source: `import { readFileSync } from 'node:fs';
import { initSync } from '${glue}';
initSync({ module: readFileSync(new URL('${wasm}', import.meta.url)) });
${loaded}`,
  },
  // Deno: a source-phase import yields the compiled module with no permission to read files.
  'deno.js': {
    prefix: `import source ${MODULE} from '${wasm}';\n`,
    source: `import { initSync } from '${glue}';
initSync({ module: ${MODULE} });
${loaded}`,
  },
  // workerd (Cloudflare Workers): no wasm compilation from bytes at run time; the bundler or the
  // config hands over the .wasm as a WebAssembly.Module.
  'workerd.js': {
    prefix: `import ${MODULE} from '${wasm}';\n`,
    source: `import { initSync } from '${glue}';
initSync({ module: ${MODULE} });
${loaded}`,
  },
};

// The names of the .wasm's imports and exports (`__wbg_then_fa9ebfb9bb299695`, one per binding,
// each with a hash that does not compress) are the largest part of its import section, and the
// glue repeats them. binaryen renames them all to one or two letters and prints the mapping; the
// glue is rewritten to match, and checked to hold no old name. One more -Oz after the renaming
// shrinks the .wasm a little further (docs/performance.md).
function minifyNames() {
  const file = join(pkg, 'plant_store_client_bg.wasm');
  const printed = execFileSync(join(root, 'node_modules/.bin/wasm-opt'), [
    file, '-o', file, '--minify-imports-and-exports-and-modules', '-Oz',
    ...WASM_FEATURES,
  ], { encoding: 'utf8' });
  const mapping = JSON.parse(printed.slice(printed.indexOf('{')));
  const modules = new Set();
  let js = readFileSync(join(pkg, glue), 'utf8');
  const replaceAll = (pattern, to, what) => {
    const next = js.replace(pattern, to);
    if (next === js) throw new Error(`finish-pkg: ${what} not found in the glue`);
    js = next;
  };
  for (const [module, name, short] of mapping.imports) {
    modules.add(module);
    // A function replacer: the short names include `$`, special in a replacement string.
    replaceAll(new RegExp(`^(\\s+)${name}(: ?function)`, 'm'), (_, indent, rest) => indent + short + rest, `import ${name}`);
  }
  if (modules.size !== 1) throw new Error(`finish-pkg: imports from ${[...modules].join(', ')}`);
  replaceAll(`"${[...modules][0]}": import0`, '"a": import0', 'the import module');
  // Exports are read as `wasm.<name>`; some (an abort handler) the glue does not read at all.
  for (const [name, short] of mapping.exports) {
    js = js.replace(new RegExp(`\\bwasm\\.${name}\\b`, 'g'), () => `wasm.${short}`);
  }
  const left = [
    ...mapping.imports.filter(([, name]) => new RegExp(`\\b${name}\\b`).test(js)),
    ...mapping.exports.filter(([name]) => new RegExp(`\\bwasm\\.${name}\\b`).test(js)),
  ];
  if (left.length) throw new Error(`finish-pkg: left in the glue: ${left.join(' ')}`);
  writeFileSync(join(pkg, glue), js);
}

/** The wasm features rustc emits for wasm32-unknown-unknown, which wasm-opt must be told. */
const WASM_FEATURES = [
  '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext',
  '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue',
];

minifyNames();

const sources = mkdtempSync(join(pkg, '.entries-'));
try {
  for (const [name, { source, prefix = '' }] of Object.entries(entries)) {
    const input = join(sources, name);
    writeFileSync(input, source.replaceAll(`'${glue}'`, `'${join(pkg, glue)}'`));
    const bundle = await rolldown({ input, external: [/^node:/], logLevel: 'silent' });
    const { output } = await bundle.generate({ format: 'es', minify: true });
    await bundle.close();
    if (output.length !== 1) throw new Error(`${name}: expected one chunk, got ${output.length}`);
    writeFileSync(join(pkg, name), prefix + output[0].code);
  }
} finally {
  rmSync(sources, { recursive: true, force: true });
}

writeFileSync(join(pkg, 'index.d.ts'), `import type { InitInput } from '${glue}';
export { ${API} } from '${glue}';
export type {
  NewPlant, Plant, PlantStoreAuth, PlantStoreOptions, CallOptions,
  ValidationIssue, ValidationIssueCode, ValidationResult, PlantStoreErrorKind, InitInput,
} from '${glue}';

/**
 * Loads the wasm module, once; a second or concurrent call shares the first load. Needed only with
 * \`plant-store-client/manual\` in a browser or bundler; every other entry loads on import and
 * resolves at once. \`source\`: the .wasm's URL (default: next to the entry), a Response, its bytes or
 * a WebAssembly.Module.
 */
export function init(source?: InitInput | Promise<InitInput>): Promise<void>;
`);

// \`plant-store-client/manual\` has the same API. Its own file gives it types where the exports map
// is not read (TypeScript's node10 resolution looks for manual.d.ts next to manual.js).
writeFileSync(join(pkg, 'manual.d.ts'), `export * from './index.js';\n`);

// The version, description and license come from Cargo.toml (the workspace's one version), read
// through cargo itself.
const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--no-deps', '--format-version', '1', '--offline'], {
  cwd: root, encoding: 'utf8', maxBuffer: 64 << 20,
}));
const crate = metadata.packages.find((p) => p.name === 'plant-store-client');
const conditions = (types, fallback) => ({
  types,
  workerd: './workerd.js',
  deno: './deno.js',
  node: './node.mjs',
  default: fallback,
});
const manifest = {
  name: 'plant-store-client',
  version: crate.version,
  description: crate.description,
  license: crate.license,
  keywords: ['plant-store', 'api-client', 'wasm', 'webassembly', 'fetch', 'edge'],
  type: 'module',
  main: './index.js',
  types: './index.d.ts',
  // Order matters: a resolver takes the first condition it knows. Deno knows `deno` and `node`;
  // Node's `require` of node.mjs works from Node 20.19 / 22.12 on (require of ESM).
  exports: {
    '.': conditions('./index.d.ts', './index.js'),
    './manual': conditions('./manual.d.ts', './manual.js'),
    './package.json': './package.json',
  },
  // The package is ESM only; Node's `require` loads it through require(esm), unflagged from Node
  // 20.19 and 22.12, which is why these are the oldest supported. The runtime suite runs both floors
  // and Node 24 (tests/js/support/nodes.mjs), and tests/release checks the range against that list.
  engines: { node: '^20.19.0 || >=22.12.0' },
  files: [
    'index.js', 'manual.js', 'node.mjs', 'deno.js', 'workerd.js', 'index.d.ts', 'manual.d.ts',
    'plant_store_client.d.ts', 'plant_store_client_bg.wasm', 'README.md', 'LICENSE', 'CHANGELOG.md',
  ],
  // The entries that load the wasm when imported must be kept by a bundler even when no export is
  // used. manual.js only defines.
  sideEffects: ['./index.js', './node.mjs', './deno.js', './workerd.js'],
};
writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
for (const doc of ['README.md', 'LICENSE', 'CHANGELOG.md']) copyFileSync(join(root, doc), join(pkg, doc));
console.log(`pkg: finished ${manifest.name}@${manifest.version} in ${pkg}`);
