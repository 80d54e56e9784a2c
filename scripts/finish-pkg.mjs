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

const exportsLine = `export { createPlant, validateNewPlant, PlantStoreClient } from '${glue}';
export { PlantStoreError } from '${runtime}';`;

const files = {
  // Browsers, bundlers (the .wasm is an asset found through import.meta.url) and Deno.
  'index.js': `// Loads the wasm module with top-level await, then exports the API.
import init from '${glue}';

await init({ module_or_path: new URL('${wasm}', import.meta.url) });

${exportsLine}
`,
  // Node: fetch() cannot read file: URLs there, so the bytes are read from disk.
  'node.mjs': `// Node: reads the .wasm from disk and instantiates it before exporting the API.
import { readFileSync } from 'node:fs';
import { initSync } from '${glue}';

initSync({ module: readFileSync(new URL('${wasm}', import.meta.url)) });

${exportsLine}
`,
  'index.d.ts': `export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError } from '${glue}';
export type {
  NewPlant, Plant, PlantStoreAuth, PlantStoreOptions, CallOptions,
  ValidationIssue, ValidationIssueCode, ValidationResult, PlantStoreErrorKind,
} from '${glue}';
`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(pkg, name), text);

// wasm-bindgen declares \`[Symbol.dispose]()\`, which fails to type-check for consumers whose \`lib\`
// lacks esnext.disposable. The method still exists at runtime; \`free()\` stays declared.
const dts = join(pkg, 'plant_store_client.d.ts');
writeFileSync(dts, readFileSync(dts, 'utf8').replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/m, ''));

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
  exports: {
    '.': {
      types: './index.d.ts',
      node: './node.mjs',
      default: './index.js',
    },
    './package.json': './package.json',
  },
  files: [
    'index.js', 'index.d.ts', 'node.mjs', 'plant_store_client.js', 'plant_store_client.d.ts',
    'plant_store_client_bg.wasm', 'plant_store_client_bg.wasm.d.ts', 'snippets/', 'README.md', 'LICENSE',
  ],
  // Every entry runs its init when imported: a bundler must keep them.
  sideEffects: ['./index.js', './node.mjs', './snippets/*'],
};
writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
for (const doc of ['README.md', 'LICENSE']) {
  if (existsSync(join(root, doc))) copyFileSync(join(root, doc), join(pkg, doc));
}
console.log(`pkg: finished ${manifest.name}@${manifest.version} in ${pkg}`);
