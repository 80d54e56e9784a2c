// Minifies the package's JavaScript in place, with terser: every .js and .mjs file of the package
// folder (the wasm-bindgen glue, snippets/, the entries), each file on its own as an ES module. No
// bundling: the imports between the files, `import source` of the .wasm (deno.js) and its plain
// import (workerd.js) stay as written. Exported names and property names are kept (the wasm's imports
// object is keyed by them), and so is the glue's `@ts-self-types` comment; the .d.ts files are left as
// they are.
//   node scripts/minify-pkg.mjs [pkg-dir]
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = process.argv[2] ?? join(root, 'pkg');

// `module: true`: strict mode, top-level names are local to the file (mangled unless exported).
const options = { module: true, format: { comments: /@ts-self-types=|@license|@preserve|^!/ } };

const files = readdirSync(pkg, { recursive: true }).filter((f) => /\.m?js$/.test(f)).sort();
if (files.length === 0) throw new Error(`no JavaScript to minify in ${pkg}`);
let before = 0;
let after = 0;
for (const file of files) {
  const path = join(pkg, file);
  const source = readFileSync(path, 'utf8');
  let code;
  try {
    ({ code } = await minify({ [file]: source }, options));
  } catch (err) {
    throw new Error(`minify ${file}${err.line ? `:${err.line}:${err.col}` : ''}: ${err.message}`, { cause: err });
  }
  writeFileSync(path, code + '\n');
  before += Buffer.byteLength(source);
  after += Buffer.byteLength(code) + 1;
}
console.log(`pkg: minified ${files.length} JS files, ${before} -> ${after} bytes`);
