// Which functions of the crate one successful createPlant runs, counted strictly from the code as
// compiled: every function of src/ that executes (closures, the bodies of async fns, `Drop` impls,
// derived impls and the wrappers wasm-bindgen generates for the crate's bindings included), in order
// of first call, and apart those of model/src/.
//   node bench/trace-call.mjs [--json]     (bench/run runs it too; about a minute on 2 cores)
//
// How: a debug build of the package's crate (features `js`, no std, as scripts/build-pkg builds it;
// opt-level 0, so nothing is inlined and each function of the source is one function of the .wasm),
// its JS glue from wasm-bindgen, then binaryen's `--log-execution` pass, which calls an imported
// `log_execution(id)` on entry to every function (and at its returns and loop heads). The ids are
// mapped to functions through the instrumented module's text, the functions to their source file and
// line through the DWARF of the build (`llvm-dwarfdump`), joined on the mangled name that the name
// section keeps (`--no-demangle`). One createPlant then runs in Node with a fixed token, against a
// global fetch that answers 200 with the Plant; the ids logged from the call until its promise
// settles are the trace. A function counts once however many times it runs and however many copies
// of it (monomorphs of a generic) ran: its key is its file, line and name without type arguments.
// Functions of core, alloc, js_sys, wasm-bindgen and the allocator are not counted: their
// definitions are outside src/ and model/src/.
//
// Hand-written because no tool counts the functions a call runs: a profiler samples (and misses
// the short ones), a coverage build counts lines and regions of the whole test suite, not one call.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FEATURES = [
  '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];
const sh = (command, args, env = {}) =>
  execFileSync(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 600_000,
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString();

/** The debug build: mangled (v0) names in the name section, DWARF beside them. */
function build() {
  const target = join(ROOT, 'target/trace');
  sh(
    'cargo',
    [
      'build',
      '--quiet',
      '--target',
      'wasm32-unknown-unknown',
      '--no-default-features',
      '--features',
      'js',
      '-p',
      'plant-store-client',
    ],
    {
      CARGO_TARGET_DIR: target,
      CARGO_PROFILE_DEV_OPT_LEVEL: '0',
      CARGO_PROFILE_DEV_DEBUG: '2',
      RUSTFLAGS: '-Csymbol-mangling-version=v0 -Clink-arg=--no-demangle',
    },
  );
  return join(target, 'wasm32-unknown-unknown/debug/plant_store_client.wasm');
}

/** Every subprogram of the DWARF with a mangled name: its source file and line, by that name. */
function sources(wasm) {
  const text = sh('llvm-dwarfdump', ['--debug-info', wasm]);
  const byName = new Map();
  let die = null;
  const flush = () => {
    if (die?.tag === 'DW_TAG_subprogram' && die.linkage && die.file && !byName.has(die.linkage)) {
      byName.set(die.linkage, { file: die.file, line: die.line });
    }
  };
  for (const line of text.split('\n')) {
    const tag = line.match(/^0x[0-9a-f]+:\s+(DW_TAG_\w+)/);
    if (tag) {
      flush();
      die = { tag: tag[1] };
      continue;
    }
    const attribute =
      die &&
      line.match(/^\s+(DW_AT_linkage_name|DW_AT_decl_file|DW_AT_decl_line)\s+\("?(.*?)"?\)$/);
    if (!attribute) continue;
    if (attribute[1] === 'DW_AT_linkage_name') die.linkage = attribute[2];
    if (attribute[1] === 'DW_AT_decl_file') die.file = attribute[2];
    if (attribute[1] === 'DW_AT_decl_line') die.line = Number(attribute[2]);
  }
  flush();
  return byName;
}

/** The glue and the instrumented .wasm in `dir`; each log id's function (mangled name). */
function instrument(wasm, dir) {
  sh('wasm-bindgen', ['--target', 'web', '--no-demangle', '--out-dir', dir, wasm]);
  const bg = join(dir, 'plant_store_client_bg.wasm');
  sh('node_modules/.bin/wasm-opt', ['--log-execution', '-g', ...FEATURES, bg, '-o', bg]);
  const text = sh('node_modules/.bin/wasm-opt', ['-g', ...FEATURES, '--print', bg]);
  const logger = text.match(/\(import "[^"]*" "log_execution" \(func \$(\S+)/)[1];
  const owner = new Map();
  let current = null;
  let logging = false;
  for (const line of text.split('\n')) {
    const func = line.match(/^ \(func \$(?:"((?:[^"\\]|\\.)*)"|(\S+))/);
    if (func) {
      current = func[1] ?? func[2];
      continue;
    }
    if (line.trimStart().startsWith(`(call $${logger}`)) logging = true;
    else if (logging) {
      owner.set(Number(line.match(/\(i32\.const (\d+)\)/)[1]), current);
      logging = false;
    }
  }
  return owner;
}

/** The ids one createPlant logs, from the call to its settling. */
async function trace(dir) {
  const log = [];
  let on = false;
  const Instance = WebAssembly.Instance;
  // A function, not an arrow: the glue calls it with `new`.
  WebAssembly.Instance = function instrumented(module, imports) {
    for (const { module: from, name } of WebAssembly.Module.imports(module)) {
      if (name === 'log_execution')
        imports[from] = { ...imports[from], log_execution: (id) => on && log.push(id) };
    }
    return new Instance(module, imports);
  };
  const api = await import(pathToFileURL(join(dir, 'plant_store_client.js')));
  api.initSync({ module: readFileSync(join(dir, 'plant_store_client_bg.wasm')) });
  WebAssembly.Instance = Instance;
  globalThis.fetch = async () =>
    new Response('{"name":"Fern","tag":"green"}', {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  on = true;
  const plant = await api.createPlant(
    { id: 1, name: 'Fern', tag: 'green' },
    { baseUrl: 'https://plants.example/api', token: 'a-fixed-token-0123' },
  );
  on = false;
  if (plant.name !== 'Fern' || plant.tag !== 'green')
    throw new Error(`the call returned ${JSON.stringify(plant)}`);
  return log;
}

/** Readable names: `llvm-cxxfilt`, then without crate paths, hashes and type arguments. */
function demangle(names) {
  const out = sh('llvm-cxxfilt', names).trim().split('\n');
  const untyped = (name) => {
    let result = '';
    let depth = 0;
    for (let i = 0; i < name.length; i++) {
      const c = name[i];
      // Type arguments: `::<…>`, or `<…>` right after a name; a leading `<` opens a qualified path.
      if (
        c === '<' &&
        (depth > 0 || (i > 0 && /[\w:]/.test(name[i - 1]) && name.slice(i - 2, i) !== 'as'))
      ) {
        if (depth === 0 && result.endsWith('::')) result = result.slice(0, -2);
        depth++;
      } else if (c === '>' && depth > 0) depth--;
      else if (depth === 0) result += c;
    }
    return result;
  };
  return out.map((name) => untyped(name.replace(/plant_store_(client|model)::/g, '')));
}

/**
 * What a function is in the source: `fn`, an item written as `fn name` (a method, a `Drop` impl, an
 * async fn's constructor); `closure`, a closure or an async body; `generated`, code a macro wrote
 * (a derive, wasm-bindgen's wrappers of the crate's bindings, the allocator's entry points).
 */
function kind(name, file, line) {
  if (name.includes('{closure#')) return 'closure';
  const text = readFileSync(join(ROOT, file), 'utf8').split('\n')[line - 1] ?? '';
  const own = name.split('::').pop();
  return new RegExp(`\\bfn\\s+${own.replace(/\W/g, '')}\\b`).test(text) ? 'fn' : 'generated';
}

export async function traceCall() {
  const wasm = build();
  const lines = sources(wasm);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-trace-'));
  try {
    const owner = instrument(wasm, dir);
    const ids = await trace(dir);
    const seen = new Map();
    for (const id of ids) {
      const mangled = owner.get(id);
      const source = lines.get(mangled);
      if (!source || seen.has(mangled)) continue;
      const file = relative(ROOT, source.file);
      if (!/^(model\/)?src\//.test(file)) continue;
      seen.set(mangled, { file, line: source.line });
    }
    const names = demangle([...seen.keys()]);
    const functions = [];
    const keys = new Set();
    [...seen.values()].forEach(({ file, line }, i) => {
      const key = `${file}:${line}:${names[i]}`;
      if (keys.has(key)) return;
      keys.add(key);
      functions.push({
        name: names[i],
        file,
        line,
        kind: kind(names[i], file, line),
        model: file.startsWith('model/'),
      });
    });
    return functions;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Counts of src/ and of model/src/: the `fn` items that ran (the figure of docs/performance.md),
 * their files and how often their order changes file; and the closures and generated code beside.
 */
export function summary(functions) {
  const part = (all) => {
    const list = all.filter((f) => f.kind === 'fn');
    return {
      functions: list.length,
      files: new Set(list.map((f) => f.file)).size,
      switches: list.filter((f, i) => i > 0 && f.file !== list[i - 1].file).length,
      closures: all.filter((f) => f.kind === 'closure').length,
      generated: all.filter((f) => f.kind === 'generated').length,
    };
  };
  return {
    src: part(functions.filter((f) => !f.model)),
    model: part(functions.filter((f) => f.model)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const tool of ['llvm-dwarfdump', 'llvm-cxxfilt']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      console.error(`trace-call: ${tool} is missing (Debian: apt-get install llvm)`);
      process.exit(1);
    }
  }
  const functions = await traceCall();
  const counts = summary(functions);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ counts, functions }, null, 2));
  } else {
    for (const [title, model] of [
      ['src/', false],
      ['model/src/', true],
    ]) {
      const all = functions.filter((f) => f.model === model);
      const {
        functions: n,
        files,
        switches,
        closures,
        generated,
      } = counts[model ? 'model' : 'src'];
      console.log(
        `\n${title}: ${n} functions (fn items) in ${files} files, ${switches} changes of file; ` +
          `beside them ${closures} closures and ${generated} generated. In order of first call:`,
      );
      let number = 0;
      for (const f of all) {
        const at =
          f.kind === 'fn' ? String(++number).padStart(3) : `  ${f.kind === 'closure' ? 'c' : 'g'}`;
        console.log(`${at}  ${f.file}:${f.line}  ${f.name}`);
      }
      const byFile = new Map();
      for (const f of all.filter((f) => f.kind === 'fn'))
        byFile.set(f.file, (byFile.get(f.file) ?? 0) + 1);
      console.log(
        `fn items by file: ${[...byFile].map(([file, count]) => `${file} ${count}`).join(', ')}`,
      );
    }
  }
}
