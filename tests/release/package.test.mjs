// The packed npm package passes the ecosystem's own checks: publint with nothing to report (errors,
// warnings or suggestions), Are the Types Wrong with no problem under node10, node16 and bundler but
// the ESM-from-CJS note, a file list that is exactly what the package needs, and an engines range
// that holds the Node versions the tests run. Run by scripts/release-check on $PKG_TARBALL.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import semver from 'semver';
import { NODES } from '../js/support/nodes.mjs';
import { entryBytes } from '../../scripts/package-readme.mjs';
import { packed, BIN } from './support.mjs';

/** Runs attw on the tarball: its JSON report, whatever its exit code. */
function attw(tarball) {
  return new Promise((resolve, reject) => {
    execFile(
      join(BIN, 'attw'),
      [tarball, '--format', 'json'],
      { maxBuffer: 64 << 20, timeout: 120_000 },
      (err, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`attw gave no report (${err?.code}):\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** Every relative file a shipped JS or .d.ts file refers to: imports, and `new URL(…, import.meta.url)`. */
function references(file, text) {
  const found = new Set();
  // A query (`.wasm?module`, Vercel's import of a compiled module) names the same file.
  for (const [, spec] of text.matchAll(/['"`](\.{1,2}\/[^'"`\s?]+)(?:\?\w+)?['"`]/g))
    found.add(spec);
  for (const [, spec] of text.matchAll(/new URL\(\s*['"`]([^'"`]+)['"`]\s*,\s*import\.meta\.url/g))
    found.add(spec);
  return [...found].map((spec) => {
    const target = posix.normalize(posix.join(posix.dirname(file), spec));
    // TypeScript resolves `./x.js` in a declaration file to `./x.d.ts`.
    return file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
  });
}

describe('the packed npm package', { timeout: 180_000 }, () => {
  let pack;
  before(() => {
    pack = packed();
  });
  after(() => rmSync(pack.scratch, { recursive: true, force: true }));

  it('publint reports nothing: no error, warning or suggestion', async () => {
    const bytes = readFileSync(pack.tarball);
    const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const { messages, pkg } = await publint({
      pack: { tarball },
      level: 'suggestion',
      strict: true,
    });
    const lines = messages.map(
      (m) => `${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`,
    );
    assert.deepEqual(lines, [], `publint:\n${lines.join('\n')}`);
  });

  it('attw finds no problem for any entry under node10, node16 and bundler, but ESM-from-CJS', async () => {
    const report = await attw(pack.tarball);
    const { entrypoints, problems: all } = report.analysis;
    assert.deepEqual(Object.keys(entrypoints).sort(), [
      '.',
      './outbox',
      './outbox/worker',
      './package.json',
    ]);
    for (const [name, entry] of Object.entries(entrypoints)) {
      assert.deepEqual(
        Object.keys(entry.resolutions).sort(),
        ['bundler', 'node10', 'node16-cjs', 'node16-esm'],
        name,
      );
    }
    // The one allowed finding: `require` of the package resolves to ESM. Node loads it through
    // require(esm), unflagged from 20.19 and 22.12, the oldest versions `engines` admits.
    const other = all.filter(
      (p) => !(p.kind === 'CJSResolvesToESM' && p.resolutionKind === 'node16-cjs'),
    );
    assert.deepEqual(other, [], `attw:\n${JSON.stringify(other, null, 2)}`);
  });

  it('each entry exports in Node the values its .d.ts declares, no more, no fewer', async () => {
    const { manifest, root } = pack;
    for (const entry of ['.', './outbox']) {
      const { types, node } = manifest.exports[entry];
      const text = readFileSync(join(root, types), 'utf8');
      const declared = text.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm);
      const module = await import(pathToFileURL(join(root, node)).href);
      assert.deepEqual(
        Object.keys(module).sort(),
        [...new Set([...declared].map((m) => m[1]))].sort(),
        entry,
      );
    }
  });

  it('holds exactly the files it needs, each one it lists', () => {
    const { manifest, files, root } = pack;
    assert.deepEqual(
      files,
      [...manifest.files, 'package.json'].sort(),
      'the tarball against package.json "files"',
    );
    // What the package needs: the documents, the targets of main, types and exports, and what
    // those files refer to, transitively.
    const needed = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);
    const targets = [manifest.main, manifest.types];
    const walk = (value) =>
      typeof value === 'string' ? targets.push(value) : Object.values(value).forEach(walk);
    walk(manifest.exports);
    const queue = targets.map((t) => posix.normalize(t));
    while (queue.length) {
      const file = queue.pop();
      if (needed.has(file)) continue;
      assert.ok(files.includes(file), `${file} is referred to but not in the tarball`);
      needed.add(file);
      if (/\.(m?js|d\.ts)$/.test(file))
        queue.push(...references(file, readFileSync(join(root, file), 'utf8')));
    }
    assert.deepEqual([...needed].sort(), files, 'every file in the tarball is needed');
  });

  it("its README opens with npm install and Send a plant, the checkout's commands under a heading, and the entries' sizes as packed", () => {
    const readme = readFileSync(join(pack.root, 'README.md'), 'utf8');
    const headings = readme.match(/^## .*/gm);
    assert.deepEqual(headings.slice(0, 2), ['## Install', '## Send a plant'], readme);
    assert.match(
      readme.slice(0, readme.indexOf('## Send a plant')),
      /```sh\nnpm install plant-store-client\n```/,
    );
    const checkout = readme.indexOf('## In a checkout');
    assert.ok(
      checkout > 0 && readme.indexOf('```sh\nscripts/demo ') > checkout,
      'the commands under their heading',
    );
    assert.ok(!readme.includes('<!-- checkout'), 'no marker left');
    const kb = (dir) => `${(entryBytes(pack.root, dir) / 1024).toFixed(1)} KB`;
    assert.ok(readme.includes(`\`plant-store-client\` ${kb('.')}`), kb('.'));
    assert.ok(readme.includes(`\`plant-store-client/outbox\` ${kb('outbox')}`), kb('outbox'));
  });

  it('engines.node admits the Node versions the tests run, each floor among them, none without require(esm)', () => {
    const range = pack.manifest.engines?.node;
    assert.ok(semver.validRange(range), `engines.node is a range: ${range}`);
    const tested = NODES.map((node) => node.version);
    for (const version of tested) {
      assert.ok(
        semver.satisfies(version, range),
        `the tests run Node ${version}, outside engines.node ${range}`,
      );
    }
    // Each `||` branch's lowest version is one the runtime suite runs, so the floors are proven, not guessed.
    for (const branch of new semver.Range(range).set) {
      const floor = semver.minVersion(branch.map(String).join(' ')).version;
      assert.ok(
        tested.includes(floor),
        `engines.node admits Node ${floor} (${branch.join(' ')}), which no test runs; tested: ${tested}`,
      );
    }
    for (const old of ['18.20.0', '20.18.3', '21.7.0', '22.11.0']) {
      assert.ok(
        !semver.satisfies(old, range),
        `engines.node ${range} admits Node ${old}, which cannot require() the package`,
      );
    }
  });
});
