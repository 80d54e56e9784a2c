// Turns wasm-pack's `--target web` output in pkg/ (and the outbox's build in pkg/outbox/) into the
// npm package: one JavaScript file per kind of runtime, each a thin loader bundled with the
// wasm-bindgen glue (so a browser fetches the .wasm after one JS request, not after a chain of
// imports), one .d.ts per export, and a package.json.
//   node scripts/finish-pkg.mjs [pkg-dir]
//
// The API in every entry is js/entries/api.js over the glue's exports (createPlant,
// PlantStoreClient, validateNewPlant, PlantStoreError, and `init`); an entry only loads the .wasm
// its runtime's way. The entries' sources are js/entries/. The outbox's entries
// (`plant-store-client/outbox`) are the same sources over the outbox's glue and .wasm, in
// pkg/outbox/, each with js/entries/outbox.js's exports added.
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { packageReadme } from './package-readme.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const top = process.argv[2] ?? join(root, 'pkg');
const glue = './plant_store_client.js';

// The entries' sources, one real file each in js/entries/ (with the modules they share), written as
// if they sat next to the glue: './plant_store_client.js' is the glue, './plant_store_client_bg.wasm'
// the module.
const ENTRIES_DIR = join(root, 'js/entries');
const ENTRIES = ['index.js', 'manual.js', 'node.mjs', 'deno.js', 'workerd.js', 'edge-light.js'];
const BROWSER = ['index.js', 'manual.js'];
// The builds: the default one, and the outbox's (cargo feature `outbox`), with the entries of each.
const BUILDS = [
  { pkg: top, entries: ENTRIES, extra: '' },
  {
    pkg: join(top, 'outbox'),
    entries: ENTRIES.filter((name) => name !== 'manual.js'),
    extra: "export { PlantOutbox, MemoryStore } from './outbox.js';\n",
  },
];
// An import of the .wasm is kept as written, on top of the bundle: the bundler would drop the
// `source` phase of Deno's import, and cannot load a .wasm (nor `?module`, Vercel's). Cut from the
// source, the name it binds is a free one that the minifier leaves alone.
const WASM_IMPORT =
  /^import (?:source )?\w+ from '\.\/plant_store_client_bg\.wasm(?:\?module)?';\n/gm;

// The names of the .wasm's imports and exports (`__wbg_then_fa9ebfb9bb299695`, one per binding,
// each with a hash that does not compress) are the largest part of its import section, and the
// glue repeats them. binaryen renames them all to one or two letters and prints the mapping; the
// glue is rewritten to match, and checked to hold no old name. One more -Oz after the renaming
// shrinks the .wasm a little further (docs/performance.md).
function minifyNames(pkg) {
  const file = join(pkg, 'plant_store_client_bg.wasm');
  const printed = execFileSync(
    join(root, 'node_modules/.bin/wasm-opt'),
    [file, '-o', file, '--minify-imports-and-exports-and-modules', '-Oz', ...WASM_FEATURES],
    { encoding: 'utf8' },
  );
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
    replaceAll(
      new RegExp(`^(\\s+)${name}(: ?function)`, 'm'),
      (_, indent, rest) => indent + short + rest,
      `import ${name}`,
    );
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

// The glue's closure trampolines are named after their Rust types, 70 to 330 characters that a
// stack through a callback prints (the server entries keep names): each becomes `invoke_closure_N`.
function renameTrampolines(pkg) {
  const names = new Map();
  const js = readFileSync(join(pkg, glue), 'utf8').replace(
    /\bwasm_bindgen_[0-9a-f]{16}___convert__closures_____invoke\w*/g,
    (name) => names.get(name) ?? names.set(name, `invoke_closure_${names.size + 1}`).get(name),
  );
  writeFileSync(join(pkg, glue), js);
}

/** The wasm features rustc emits for wasm32-unknown-unknown, which wasm-opt must be told. */
const WASM_FEATURES = [
  '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];

for (const { pkg, entries, extra } of BUILDS) {
  minifyNames(pkg);
  renameTrampolines(pkg);
  for (const name of entries) await bundle(pkg, name, extra);
}

/** Bundles the entry `name` with the glue of `pkg` into `pkg/name`, `extra` added to its source. */
async function bundle(pkg, name, extra) {
  const kept = [];
  const bundle = await rolldown({
    input: join(ENTRIES_DIR, name),
    external: [/^node:/],
    logLevel: 'silent',
    plugins: [
      {
        name: 'plant-store-entries',
        resolveId: (id, importer) =>
          id === glue && importer?.startsWith(ENTRIES_DIR) ? join(pkg, glue) : null,
        load: (id) =>
          id.startsWith(ENTRIES_DIR)
            ? readFileSync(id, 'utf8').replace(WASM_IMPORT, (line) => {
                kept.push(line);
                return '';
              }) + (id === join(ENTRIES_DIR, name) ? extra : '')
            : null,
      },
    ],
  });
  // Browsers get the smallest file. The server runtimes' entries keep their names and line breaks:
  // an uncaught PlantStoreError in Node prints one readable line of source, the class's own name,
  // and a stack of named functions (their price is in docs/performance.md). No comments; the
  // annotations tell the consumer's bundler what is pure.
  const minify = BROWSER.includes(name)
    ? {
        compress: true,
        mangle: { keepNames: { class: true, function: false } },
        codegen: { removeWhitespace: true },
      }
    : { compress: true, mangle: false, codegen: { removeWhitespace: false } };
  const comments = { legal: false, annotation: true, jsdoc: false };
  const { output } = await bundle.generate({ format: 'es', minify, comments });
  await bundle.close();
  if (output.length !== 1) throw new Error(`${name}: expected one chunk, got ${output.length}`);
  // Rolldown marks where each module starts with a comment of its path (a path on this machine).
  const code = output[0].code.replace(/^\/\/ .*\n/gm, '');
  writeFileSync(join(pkg, name), kept.join('') + code);
}

// The package's types: src/js/types.d.ts, the API's one declaration (also in a plain wasm-pack
// build's .d.ts), and `init`. Not the glue's generated .d.ts, whose InitInput needs the DOM library.
// The outbox's: the same, src/js/outbox.d.ts and js/entries/outbox.d.ts (PlantOutbox).
const types =
  readFileSync(join(root, 'src/js/types.d.ts'), 'utf8') +
  `
/** What \`init\` loads the module from: its URL, a Response, its bytes, or a WebAssembly.Module. */
export type InitInput = string | URL | Response | ArrayBuffer | ArrayBufferView | object;

/**
 * Resolves once the wasm module is loaded, the same promise each time. Every entry but
 * \`plant-store-client/manual\` starts the load on import (the default entry, for browsers and
 * bundlers, in the background: \`await init()\` before \`validateNewPlant\` at start-up);
 * \`plant-store-client/manual\` loads it here, once, from \`source\` (default: the .wasm next to the
 * entry). A .wasm whose fetch failed rejects with a \`network\` PlantStoreError, and is fetched again
 * by the next call or init(); any other failed load with a \`config\` one naming the URL, and after
 * such a load on import every export fails with it.
 */
export function init(source?: InitInput | Promise<InitInput>): Promise<void>;
`;
writeFileSync(join(top, 'index.d.ts'), types);
const outboxTypes = ['src/js/outbox.d.ts', 'js/entries/outbox.d.ts'].map((file) =>
  readFileSync(join(root, file), 'utf8'),
);
writeFileSync(join(top, 'outbox/index.d.ts'), [types, ...outboxTypes].join('\n'));

// \`plant-store-client/manual\` has the same API. Its own file gives it types where the exports map
// is not read (TypeScript's node10 resolution looks for manual.d.ts next to manual.js).
writeFileSync(join(top, 'manual.d.ts'), `export * from './index.js';\n`);

// The version, description and license come from Cargo.toml (the workspace's one version), read
// through cargo itself.
const metadata = JSON.parse(
  execFileSync('cargo', ['metadata', '--no-deps', '--format-version', '1', '--offline'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }),
);
const crate = metadata.packages.find((p) => p.name === 'plant-store-client');
const conditions = (types, fallback, dir = '.') => ({
  types,
  workerd: `${dir}/workerd.js`,
  'edge-light': `${dir}/edge-light.js`,
  deno: `${dir}/deno.js`,
  node: `${dir}/node.mjs`,
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
    // The durable outbox: the same API and PlantOutbox, from a build of its own (pkg/outbox/).
    './outbox': conditions('./outbox/index.d.ts', './outbox/index.js', './outbox'),
    // The .wasm itself, for a page that preloads it through its bundler:
    // `import wasmUrl from 'plant-store-client/wasm?url'` in Vite gives its emitted URL.
    './wasm': './plant_store_client_bg.wasm',
    './package.json': './package.json',
  },
  // The package is ESM only; Node's `require` loads it through require(esm), unflagged from Node
  // 20.19 and 22.12, which is why these are the oldest supported. The runtime suite runs both floors
  // and Node 24 (tests/js/support/nodes.mjs), and tests/release checks the range against that list.
  engines: { node: '^20.19.0 || >=22.12.0' },
  files: [
    'index.js',
    'manual.js',
    'node.mjs',
    'deno.js',
    'workerd.js',
    'edge-light.js',
    'index.d.ts',
    'manual.d.ts',
    'plant_store_client_bg.wasm',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    ...BUILDS[1].entries.map((name) => `outbox/${name}`),
    'outbox/index.d.ts',
    'outbox/plant_store_client_bg.wasm',
  ],
  // The entries that load the wasm when imported must be kept by a bundler even when no export is
  // used. manual.js only defines.
  sideEffects: BUILDS.flatMap(({ entries }, i) =>
    entries.filter((name) => name !== 'manual.js').map((name) => `./${i ? 'outbox/' : ''}${name}`),
  ),
};
writeFileSync(join(top, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const doc of ['LICENSE', 'CHANGELOG.md']) copyFileSync(join(root, doc), join(top, doc));
// The package's README: README.md with npm install first and the built entries' sizes.
writeFileSync(
  join(top, 'README.md'),
  packageReadme(readFileSync(join(root, 'README.md'), 'utf8'), top),
);
console.log(`pkg: finished ${manifest.name}@${manifest.version} in ${top}`);
