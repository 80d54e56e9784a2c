// Lines of code, as table rows [section, what, value], counted as the issues count them: a Rust
// file up to its `#[cfg(test)]` (its test module aside), a JS file whole.
// - the outbox: src/outbox/, js/outbox/, js/entries/outbox.js and worker.js (target: 1,800, 2,000
//   with the service worker's shell; no file over 300);
// - the core: the rest of src/ but the test-only modules (target: 2,400); its JS shell, js/call.js
//   (target: 300).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The lines of `file` that count: a Rust file's before its test module. */
function count(file) {
  const text = readFileSync(file, 'utf8').split('\n');
  const end = file.endsWith('.rs') ? text.findIndex((line) => line.startsWith('#[cfg(test)]')) : -1;
  return end === -1 ? text.length - (text.at(-1) === '' ? 1 : 0) : end;
}

function files(dir, extension) {
  return readdirSync(join(ROOT, dir), { recursive: true })
    .filter((name) => name.endsWith(extension))
    .map((name) => join(ROOT, dir, name));
}

export function lines() {
  const outbox = [
    ...files('src/outbox', '.rs'),
    ...files('js/outbox', '.js'),
    join(ROOT, 'js/entries/outbox.js'),
    join(ROOT, 'js/entries/worker.js'),
  ];
  // Modules compiled for tests only (lib.rs declares them under `cfg(test)`).
  const testOnly = ['src/proptests.rs'];
  const core = [...files('src', '.rs')].filter(
    (file) => !outbox.includes(file) && !testOnly.includes(relative(ROOT, file)),
  );
  const sum = (list) => list.reduce((n, file) => n + count(file), 0);
  const largest = (list) =>
    list.map((file) => [relative(ROOT, file), count(file)]).sort((a, b) => b[1] - a[1])[0];
  const [outboxFile, outboxMost] = largest(outbox);
  const [coreFile, coreMost] = largest(core);
  const section = 'lines (a Rust file up to its test module)';
  return [
    [
      section,
      'the outbox, Rust and JS (target 2,000 with the worker, no file over 300)',
      `${sum(outbox)} in ${outbox.length} files; the largest ${outboxFile}, ${outboxMost}`,
    ],
    [
      section,
      'the core: src/ but the outbox (target 2,400)',
      `${sum(core)} in ${core.length} files; the largest ${coreFile}, ${coreMost}`,
    ],
    [
      section,
      "the call's JS shell, js/call.js (target 300)",
      String(count(join(ROOT, 'js/call.js'))),
    ],
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [, what, value] of lines()) console.log(`${what} | ${value}`);
}
