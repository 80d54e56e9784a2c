// The package's types as TypeScript projects meet them: the packed package ($PKG_TARBALL, else
// `npm pack` of $PKG_DIR) installed in a scratch consumer, and tests/types/consumer.ts type-checked
// with `tsc --noEmit` under each setup below. Right uses compile; wrong ones, and narrowing that
// must not happen, are `@ts-expect-error` lines, which tsc reports when they are no error. No type
// may need the DOM library: a Node project has `lib: ["es2022"]` and @types/node (20.19, the
// oldest Node the package supports). tests/types/consumer.cts is a CommonJS consumer.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './support/server.mjs';
import { tarball } from './support/tarball.mjs';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** `tsc -p config` in `cwd`: its exit code and what it printed. */
function tsc(cwd, config) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, '-p', config],
      { cwd, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (err.code ?? err.signal) : 0, output: stdout + stderr });
      },
    );
  });
}

const DOM = { lib: ['es2022', 'dom'], types: [] };
const NODE = { lib: ['es2022'], types: ['node'] };
const BUNDLER = { module: 'esnext', moduleResolution: 'bundler' };
const NODE16 = { module: 'node16', moduleResolution: 'node16' };

/** Each setup: its compiler options (over strict, noEmit, skipLibCheck false), and its files. */
const ESM = ['consumer.ts', 'readme-outbox.ts'];
const SETUPS = [
  { name: 'bundler, lib es2022 + dom', options: { ...BUNDLER, ...DOM }, files: ESM },
  {
    name: 'bundler, lib es2022 + @types/node, no DOM',
    options: { ...BUNDLER, ...NODE },
    files: ESM,
  },
  {
    name: 'node16 (ES module), lib es2022 + @types/node, no DOM',
    options: { ...NODE16, ...NODE },
    files: ESM,
  },
  { name: 'node16 (ES module), lib es2022 + dom', options: { ...NODE16, ...DOM }, files: ESM },
  {
    name: 'nodenext, a CommonJS file (require of an ES module)',
    options: { module: 'nodenext', moduleResolution: 'nodenext', ...NODE },
    files: ['consumer.cts'],
  },
];

/**
 * The README's outbox example as it is written, with what it leaves to the reader declared: it must
 * compile under strict TypeScript.
 */
function readmeOutbox() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Never lose a plant'));
  const example = section.match(/```ts\n([\s\S]*?)```/)[1];
  return `${example}
import type { OutboxChange } from 'plant-store-client/outbox';
declare const baseUrl: string;
declare function getToken(options: { refresh: boolean }): Promise<string>;
declare function render(change: OutboxChange): void;
void PlantStoreError;
`;
}

describe('the types of the packed package', { timeout: 300_000 }, () => {
  let tmp;
  let consumer;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'plant-store-types-'));
    consumer = join(tmp, 'consumer');
    mkdirSync(join(consumer, 'node_modules/@types'), { recursive: true });
    cpSync(join(ROOT, 'tests/types'), consumer, { recursive: true });
    // "type": "module": under node16 a .ts file is then an ES module, as in a Node ESM project.
    writeFileSync(
      join(consumer, 'package.json'),
      '{ "name": "types-consumer", "private": true, "type": "module" }\n',
    );
    writeFileSync(join(consumer, 'readme-outbox.ts'), readmeOutbox());
    const packed = tarball(tmp);
    await new Promise((resolve, reject) =>
      execFile(
        'npm',
        [
          'install',
          '--offline',
          '--no-package-lock',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          packed,
        ],
        { cwd: consumer, timeout: 120_000 },
        (err, _out, errOut) => (err ? reject(new Error(errOut)) : resolve()),
      ),
    );
    symlinkSync(join(ROOT, 'node_modules/@types/node'), join(consumer, 'node_modules/@types/node'));
  });

  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** Writes tsconfig.<n>.json for `options` and `files`; runs tsc on it. */
  function check(n, options, files) {
    const config = `tsconfig.${n}.json`;
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: 'es2022',
      ...options,
    };
    writeFileSync(join(consumer, config), JSON.stringify({ compilerOptions, files }, null, 2));
    return tsc(consumer, config);
  }

  SETUPS.forEach(({ name, options, files }, n) => {
    it(`${name}: ${files.join(', ')} type-checks, and every @ts-expect-error is an error`, async () => {
      const { code, output } = await check(n, options, files);
      assert.equal(code, 0, output);
    });
  });

  it('node16, a CommonJS file: TS1479 (require of an ES module), as docs/runtimes.md says; nodenext is the fix', async () => {
    const { code, output } = await check('cjs-node16', { ...NODE16, ...NODE }, ['consumer.cts']);
    assert.notEqual(code, 0);
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    assert.ok(errors.length > 0 && errors.every((line) => line.includes('error TS1479')), output);
  });
});
