// Size figures of a built package, as table rows [section, what, value]:
//   const rows = sizes(PKG_DIR)
// - gzip -9 of what a user downloads: the files concatenated, GNU gzip -9 (gzip.mjs);
// - what the .wasm costs inside index.js, by encoding: the package's (scripts/wasm-text.mjs), a
//   UTF-8 character a byte (emscripten's single-file output), base64, against the .wasm beside
//   index.js as a file of its own (index.js without it, and the .wasm, each gzipped);
// - what each library adds to the .wasm: a copy of the release .wasm that keeps its function names
//   (the same wasm-bindgen, wasm-opt -Oz and import renaming steps as scripts/build-pkg and
//   finish-pkg.mjs, with -g), read by twiggy, its items' shallow sizes summed by the crate they come
//   from. Its last row compares the total with the shipped .wasm: equal when the copy matches it.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { gzip9 } from './gzip.mjs';
import { join } from 'node:path';
import { tmpdir, homedir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { wasmLiterals, WASM_TEXT } from '../scripts/wasm-text.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WASM = 'plant_store_client_bg.wasm';
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** Runs a build step to its end (killed after 5 min). */
const sh = (command, args) =>
  execFileSync(command, args, {
    cwd: ROOT,
    timeout: 300_000,
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  }).toString();

export function sizes(pkg) {
  const size = (...files) => {
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(pkg, f))));
    return `${kb(bytes.length)} raw, ${kb(gzip9(bytes))} gzip -9`;
  };
  const gz = (files) => gzip9(Buffer.concat(files.map((f) => readFileSync(join(pkg, f)))));
  const over = (files, base) => `+${kb(gz(files) - gz(base))} gzip -9 (+${gz(files) - gz(base)} B)`;
  const rows = [
    ['size', 'browser build: index.js (the .wasm inside)', size('index.js')],
    ['size', 'Node build: node.mjs (the .wasm inside)', size('node.mjs')],
    ['size', '.wasm alone (imported by workerd.js and edge-light.js)', size(WASM)],
    // The outbox's entry, a build of its own (issue 33), and what it adds over the default entry.
    ['size', 'outbox entry: outbox/index.js (its .wasm inside)', size('outbox/index.js')],
    ['size', 'outbox entry over the browser build', over(['outbox/index.js'], ['index.js'])],
    ...encodings(pkg, ''),
    ...encodings(pkg, 'outbox/'),
  ];
  const shipped = readFileSync(join(pkg, WASM)).length;
  const { buckets, total } = byCrate();
  // Code: the functions' bodies, every bucket but the data, the imports and the module's structure.
  const code = [...buckets]
    .filter(([bucket]) => !NOT_CODE.has(bucket))
    .reduce((n, [, bytes]) => n + bytes, 0);
  const pct = (part, whole) => `${((100 * part) / whole).toFixed(1).padStart(4)} %`;
  const section = 'size: what each library adds to the .wasm (twiggy, shallow bytes)';
  for (const [bucket, bytes] of [...buckets].sort((a, b) => b[1] - a[1])) {
    rows.push([
      section,
      bucket,
      `${String(bytes).padStart(6)} B  ${pct(bytes, total)} of the .wasm` +
        (NOT_CODE.has(bucket) ? '' : `  ${pct(bytes, code)} of code`),
    ]);
  }
  rows.push([
    section,
    "code (the buckets with a '% of code')",
    `${String(code).padStart(6)} B  ${pct(code, total)} of the .wasm`,
  ]);
  rows.push([
    section,
    'total (the named copy without its custom sections)',
    `${String(total).padStart(6)} B  (the shipped .wasm: ${shipped} B)`,
  ]);
  return rows;
}

/**
 * The rows of `dir`index.js with its .wasm in each encoding: gzip -9 of the entry, and what the
 * .wasm costs over its own file beside the entry (the entry without it, and the .wasm, each gzipped).
 */
function encodings(pkg, dir) {
  const js = readFileSync(join(pkg, dir, 'index.js'), 'utf8');
  const wasm = readFileSync(join(pkg, dir, WASM));
  const ours = wasmLiterals(wasm)[WASM_TEXT];
  const at = js.indexOf(ours);
  if (at < 0 || js.indexOf(ours, at + 1) >= 0)
    throw new Error(`${dir}index.js: no single .wasm text`);
  const gz = (literal) =>
    gzip9(Buffer.from(js.slice(0, at) + literal + js.slice(at + ours.length)));
  const apart = gz('""') + gzip9(wasm);
  const section = `size: ${dir}index.js with its .wasm inside, by encoding (gzip -9; the cost over the .wasm as a file of its own)`;
  const row = (what, literal) => {
    const bytes = gz(literal);
    const cost = bytes - apart;
    return [section, what, `${bytes} B  +${cost} B (+${((100 * cost) / apart).toFixed(1)} %)`];
  };
  // One character a byte, code points 0 to 255 (emscripten's): only the quote, the backslash and
  // the line breaks escaped.
  const escapes = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r' };
  const utf8 = [...wasm].map((byte) => String.fromCharCode(byte)).map((c) => escapes[c] ?? c);
  return [
    [section, 'the .wasm as a file of its own (index.js without it + the .wasm)', `${apart} B`],
    row(
      "the package's: printable ASCII, a byte one or two characters (scripts/wasm-text.mjs)",
      ours,
    ),
    row("UTF-8, a character a byte (emscripten's single-file output)", `"${utf8.join('')}"`),
    row('base64', `"${wasm.toString('base64')}"`),
  ];
}

/** Builds the named copy, runs twiggy, sums the shallow sizes by bucket. */
function byCrate() {
  const tmp = mkdtempSync(join(tmpdir(), 'plant-store-sizes-'));
  try {
    // The same crate build as wasm-pack's in scripts/build-pkg, with its toolchain and flags
    // (scripts/wasm-toolchain.sh), so, normally, nothing to do.
    const wasm = sh('bash', [
      '-c',
      'source scripts/wasm-toolchain.sh && ' +
        'cargo build --release --quiet --target wasm32-unknown-unknown --no-default-features --features js -p plant-store-client && ' +
        'echo "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/plant_store_client.wasm"',
    ]).trim();
    sh('wasm-bindgen', ['--target', 'web', '--out-dir', tmp, wasm]);
    const named = join(tmp, 'named.wasm');
    const features = [
      '--enable-bulk-memory',
      '--enable-nontrapping-float-to-int',
      '--enable-sign-ext',
      '--enable-mutable-globals',
      '--enable-reference-types',
      '--enable-multivalue',
    ];
    sh('node_modules/.bin/wasm-opt', [
      '-Oz',
      '--converge',
      '-g',
      ...features,
      join(tmp, WASM),
      '-o',
      named,
    ]);
    // As scripts/finish-pkg.mjs does to the shipped .wasm: imports, exports and the import module
    // renamed to one or two letters (-g keeps the function names all the same).
    sh('node_modules/.bin/wasm-opt', [
      '--minify-imports-and-exports-and-modules',
      '-g',
      ...features,
      named,
      '-o',
      named,
    ]);
    const csv = sh(process.env.TWIGGY ?? join(homedir(), '.cargo/bin/twiggy'), [
      'top',
      '-n',
      '100000',
      '-f',
      'csv',
      named,
    ]);
    const buckets = new Map();
    let total = 0;
    for (const line of csv.trim().split('\n').slice(1)) {
      const [, quoted, plain, shallow] = line.match(/^(?:"((?:[^"]|"")*)"|([^,]*)),(\d+),/);
      const bucket = bucketOf(quoted?.replaceAll('""', '"') ?? plain);
      if (bucket === null) continue;
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + Number(shallow));
      total += Number(shallow);
    }
    return { buckets, total };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The bucket of one twiggy item, or null for what the shipped .wasm does not have (the name section
 * -g keeps, the producers and target-features sections build-pkg strips). A function goes to the
 * first crate path in its name: `core[hash]::str::…` to core, `<plant_store_client::transport::Wait
 * as core::future::Future>::poll` to plant_store_client, `core::ptr::drop_in_place<plant_store_model::
 * …>` (drop glue) to core.
 */
const DATA = 'data segments (strings, tables)';
const IMPORTS = 'import section (one entry per JS function imported)';
const STRUCTURE = 'module structure (types, exports, section headers)';
const NOT_CODE = new Set([DATA, IMPORTS, STRUCTURE]);

function bucketOf(name) {
  if (/subsection"?$|^custom section/.test(name)) return null;
  if (name.startsWith('data segment')) return DATA;
  if (name.startsWith('import ')) return IMPORTS;
  if (/ shim$|^__wbindgen_|^__externref_|^__wbg_/.test(name))
    return 'wasm-bindgen shims (externref, multivalue, exports)';
  if (/^(type\[|export |elem\[|global\[|table\[|memory\[)|headers$|^wasm magic bytes$/.test(name))
    return STRUCTURE;
  // `<str>::split_once::<char>`: a method of a primitive type is core's (its name has no crate).
  if (/^<(str|\[T\]|\[u8\]|bool|char|u\d+|i\d+)>::/.test(name)) return 'core';
  const crate = name.match(/([A-Za-z_][A-Za-z0-9_]*)(?:\[[0-9a-f]+\])?::/)?.[1];
  if (crate === '__rustc') return 'alloc'; // __rust_alloc and friends: the global allocator's entry points
  if (crate) return crate;
  if (name === 'memcmp' || name === 'memcpy' || name === 'memset' || name === 'memmove')
    return 'compiler_builtins';
  return 'other';
}
