// Turns wasm-pack's `--target web` output in pkg/ (and the outbox's build in pkg/outbox/) into the
// npm package: one JavaScript file per kind of runtime, each a thin loader bundled with the
// wasm-bindgen glue and, for browsers, bundlers and the server runtimes, the .wasm itself (as a
// string: js/entries/wasm.js; one request, nothing for a bundler to emit or copy), one .d.ts per
// export, and a package.json.
//   node scripts/finish-pkg.mjs [pkg-dir]
//
// The API in every entry is js/entries/api.js over the glue's exports (createPlant,
// PlantStoreClient, validateNewPlant, PlantStoreError, and `init`); an entry only loads the .wasm
// its runtime's way (docs/runtimes.md). The entries' sources are js/entries/. The outbox's entries
// (`plant-store-client/outbox`) are the same sources over the outbox's glue and .wasm, in
// pkg/outbox/, each with js/entries/outbox.js's exports added.
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { WASM_TEXT, wasmLiterals } from './wasm-text.mjs';
import { packageReadme } from './package-readme.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const top = process.argv[2] ?? join(root, 'pkg');
const glue = './plant_store_client.js';

// The entries' sources, one real file each in js/entries/ (with the modules they share), written as
// if they sat next to the glue: './plant_store_client.js' is the glue, './plant_store_client_bg.wasm'
// the module.
const ENTRIES_DIR = join(root, 'js/entries');
const ENTRIES = ['index.js', 'node.mjs', 'workerd.js', 'edge-light.js'];
const BROWSER = ['index.js', 'worker.js'];
// The builds: the default one, and the outbox's (cargo feature `outbox`), with the entries of each.
const BUILDS = [
  { pkg: top, entries: ENTRIES, extra: '' },
  {
    pkg: join(top, 'outbox'),
    entries: ENTRIES,
    extra: "export { PlantOutbox } from './outbox.js';\n",
  },
];
// An import of the .wasm is kept as written, on top of the bundle: the bundler cannot load a .wasm
// (nor `?module`, Vercel's). Cut from the source, the name it binds is a free one that the minifier
// leaves alone.
const WASM_IMPORT = /^import \w+ from '\.\/plant_store_client_bg\.wasm(?:\?module)?';\n/gm;

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
// `plant-store-client/outbox/worker`: an app's service worker's, over the outbox's glue and .wasm.
await bundle(BUILDS[1].pkg, 'worker.js', '');

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
  let code = output[0].code.replace(/^\/\/ .*\n/gm, '');
  if (code.includes(WASM_TEXT)) {
    const literals = wasmLiterals(readFileSync(join(pkg, 'plant_store_client_bg.wasm')));
    for (const [free, literal] of Object.entries(literals)) {
      const parts = code.split(free);
      if (parts.length !== 2) throw new Error(`${name}: ${free} ${parts.length - 1} times`);
      code = parts.join(literal);
    }
  }
  writeFileSync(join(pkg, name), kept.join('') + code);
}

// The package's types: src/js/types.d.ts, the API's one declaration (also in a plain wasm-pack
// build's .d.ts), and `init`. Not the glue's generated .d.ts, whose InitInput needs the DOM library.
// The outbox's: the same, src/js/outbox.d.ts and js/entries/outbox.d.ts (PlantOutbox).
const types =
  readFileSync(join(root, 'src/js/types.d.ts'), 'utf8') +
  `
/**
 * Resolves once the wasm module is ready, the same promise each time: at once, but in a browser,
 * where it is compiled in the background on import. No export needs it: one used before then
 * compiles the module at once, on the main thread. Await it before the first call of a page that
 * must not block, or to learn up front of a module that cannot be compiled: it rejects with the
 * \`config\` PlantStoreError every export then fails with (a Content-Security-Policy without
 * 'wasm-unsafe-eval').
 */
export function init(): Promise<void>;
`;
writeFileSync(join(top, 'index.d.ts'), types);
const outboxTypes = ['src/js/outbox.d.ts', 'js/entries/outbox.d.ts'].map((file) =>
  readFileSync(join(root, file), 'utf8'),
);
writeFileSync(join(top, 'outbox/index.d.ts'), [types, ...outboxTypes].join('\n'));
copyFileSync(join(root, 'js/entries/worker.d.ts'), join(top, 'outbox/worker.d.ts'));

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
  // Order matters: a resolver takes the first condition it knows. Deno and Bun take `node`; Node's
  // `require` of node.mjs works from Node 20.19 / 22.12 on (require of ESM).
  exports: {
    '.': conditions('./index.d.ts', './index.js'),
    // The durable outbox: the same API and PlantOutbox, from a build of its own (pkg/outbox/).
    './outbox': conditions('./outbox/index.d.ts', './outbox/index.js', './outbox'),
    // An app's service worker's: the outbox's pages deliver, and so does the worker.
    './outbox/worker': { types: './outbox/worker.d.ts', default: './outbox/worker.js' },
    './package.json': './package.json',
  },
  // The package is ESM only; Node's `require` loads it through require(esm), unflagged from Node
  // 20.19 and 22.12, which is why these are the oldest supported. The runtime suite runs both floors
  // and Node 24 (tests/js/support/nodes.mjs), and tests/release checks the range against that list.
  engines: { node: '^20.19.0 || >=22.12.0' },
  files: [
    ...ENTRIES,
    'index.d.ts',
    // Imported as a module by workerd.js and edge-light.js; the other entries carry it inside.
    'plant_store_client_bg.wasm',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    ...BUILDS[1].entries.map((name) => `outbox/${name}`),
    'outbox/index.d.ts',
    'outbox/plant_store_client_bg.wasm',
    'outbox/worker.js',
    'outbox/worker.d.ts',
  ],
  // The entries load the wasm when imported: a bundler must keep them even when no export is used.
  sideEffects: [
    ...BUILDS.flatMap(({ entries }, i) => entries.map((name) => `./${i ? 'outbox/' : ''}${name}`)),
    './outbox/worker.js',
  ],
};
writeFileSync(join(top, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const doc of ['LICENSE', 'CHANGELOG.md']) copyFileSync(join(root, doc), join(top, doc));
// The package's README: README.md with npm install first and the built entries' sizes.
writeFileSync(
  join(top, 'README.md'),
  packageReadme(readFileSync(join(root, 'README.md'), 'utf8'), top),
);
console.log(`pkg: finished ${manifest.name}@${manifest.version} in ${top}`);
