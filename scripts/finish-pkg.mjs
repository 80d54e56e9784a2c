// Turns wasm-pack's `--target web` output in pkg/ into the npm package: one entry per kind of
// runtime (each loads the same .wasm its own way), one .d.ts, and a complete package.json.
//   node scripts/finish-pkg.mjs [pkg-dir]
import { readFileSync, writeFileSync, readdirSync, copyFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = process.argv[2] ?? join(root, 'pkg');
const glue = './plant_store_client.js';
const wasm = './plant_store_client_bg.wasm';

const snippetDirs = readdirSync(join(pkg, 'snippets'));
if (snippetDirs.length !== 1) throw new Error(`expected one snippets folder, found ${snippetDirs.join(', ')}`);
const runtime = `./snippets/${snippetDirs[0]}/js/runtime.js`;

// The API is entered in the runtime snippet (js/runtime.js); the glue hands it the Engine when the
// wasm module is instantiated.
const api = `export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError } from '${runtime}';`;

// The entries that load the wasm when imported (no top-level await in these three: `require` works
// on node.mjs) still export \`init\`, so code written for \`plant-store-client/manual\` runs on them.
const loadedEntry = (what, load) => `// ${what}
${load}

/** The wasm module is already loaded on import; this resolves at once (kept for portable code). */
export async function init(source) {}

${api}
`;

const files = {
  // No top-level await and no side effect: \`init()\` loads the wasm, once (a second or concurrent
  // call shares the first load). For service workers and build targets without top-level await.
  'manual.js': `// Loads the wasm module only when \`init()\` is called; await it before using the API.
import load from '${glue}';

/**
 * Loads and instantiates the wasm module once. \`source\` is the .wasm's URL (default: next to this
 * file), a Response, its bytes, or a compiled WebAssembly.Module. Safe to call twice or concurrently.
 */
export async function init(source) {
  await load({ module_or_path: source ?? new URL('${wasm}', import.meta.url) });
}

${api}
`,
  // Browsers and bundlers: the .wasm is an asset found through import.meta.url, loaded with
  // top-level await before the API is exported.
  'index.js': `// Loads the wasm module with top-level await, then exports the API.
import { init } from './manual.js';

await init();

export * from './manual.js';
`,
  // Node: fetch() cannot read file: URLs there, so the bytes are read from disk.
  'node.mjs': loadedEntry('Node: reads the .wasm from disk and instantiates it before exporting the API.',
    `import { readFileSync } from 'node:fs';
import { initSync } from '${glue}';

initSync({ module: readFileSync(new URL('${wasm}', import.meta.url)) });`),
  // Deno: a source-phase import yields the compiled module with no permission to read files.
  'deno.js': loadedEntry('Deno: imports the compiled WebAssembly.Module (source phase) and instantiates it.',
    `import source wasmModule from '${wasm}';
import { initSync } from '${glue}';

initSync({ module: wasmModule });`),
  // workerd (Cloudflare Workers): no wasm compilation from bytes at run time; the bundler or the
  // config hands over the .wasm as a WebAssembly.Module.
  'workerd.js': loadedEntry('workerd: the .wasm arrives as a WebAssembly.Module (a wasm module of the Worker).',
    `import wasmModule from '${wasm}';
import { initSync } from '${glue}';

initSync({ module: wasmModule });`),
  'index.d.ts': `import type { InitInput } from '${glue}';
export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError } from '${glue}';
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
`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(pkg, name), text);

const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const field = (name) => cargo.match(new RegExp(`^${name} = "(.*)"$`, 'm'))?.[1];
const manifest = {
  name: 'plant-store-client',
  version: field('version'),
  description: field('description'),
  license: 'MIT',
  repository: { type: 'git', url: field('repository') },
  keywords: ['plant-store', 'api-client', 'wasm', 'webassembly', 'fetch', 'edge'],
  type: 'module',
  main: './index.js',
  types: './index.d.ts',
  // Order matters: a resolver takes the first condition it knows. Deno knows `deno` and `node`;
  // Node's `require` of node.mjs works from Node 20.19 / 22.12 on (require of ESM).
  exports: {
    '.': {
      types: './index.d.ts',
      workerd: './workerd.js',
      deno: './deno.js',
      node: './node.mjs',
      default: './index.js',
    },
    './manual': {
      types: './index.d.ts',
      workerd: './workerd.js',
      deno: './deno.js',
      node: './node.mjs',
      default: './manual.js',
    },
    './package.json': './package.json',
  },
  files: [
    'index.js', 'index.d.ts', 'manual.js', 'node.mjs', 'deno.js', 'workerd.js', 'plant_store_client.js', 'plant_store_client.d.ts',
    'plant_store_client_bg.wasm', 'plant_store_client_bg.wasm.d.ts', 'snippets/', 'README.md', 'LICENSE',
  ],
  // The entries load the wasm when imported, the glue and the snippet patch prototypes at load: a
  // bundler must keep them even when no export is used. manual.js only defines and re-exports.
  sideEffects: [
    './index.js', './node.mjs', './deno.js', './workerd.js', './plant_store_client.js', './snippets/**',
  ],
};
writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
for (const doc of ['README.md', 'LICENSE']) {
  if (existsSync(join(root, doc))) copyFileSync(join(root, doc), join(pkg, doc));
}
console.log(`pkg: finished ${manifest.name}@${manifest.version} in ${pkg}`);
