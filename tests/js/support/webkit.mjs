// WebKit (Safari's engine) for the JS suites: Debian's WebKitGTK WebDriver (WebKitWebDriver, which
// drives MiniBrowser) on a virtual X display of its own (Xvfb), both installed by
// scripts/setup-webkit; and Firefox through geckodriver (bench/compile.mjs). A W3C WebDriver client of the few commands the suites use, over `fetch`:
// Playwright's WebKit is a build of its own that it downloads, and the WebDriver clients on npm
// (selenium-webdriver, webdriverio) bring dozens of packages for what is here a handful of POSTs.
// Every command is bounded by a timeout; stop() ends every process this module started, and so does
// this process's exit, also when a suite fails.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

/** MiniBrowser, which WebKitGTK's library package ships under /usr/lib/<triplet>/webkit2gtk-4.<n>/. */
export function miniBrowserPath() {
  for (const triplet of readdirSync('/usr/lib')) {
    let dirs;
    try {
      dirs = readdirSync(join('/usr/lib', triplet));
    } catch {
      continue;
    }
    for (const dir of dirs
      .filter((d) => /^webkit2gtk-4\.\d+$/.test(d))
      .sort()
      .reverse()) {
      const path = join('/usr/lib', triplet, dir, 'MiniBrowser');
      if (existsSync(path)) return path;
    }
  }
  throw new Error('no MiniBrowser under /usr/lib/*/webkit2gtk-4.*/: run scripts/setup-webkit');
}

/** The process groups this module started and has not stopped; killed when this process exits. */
const running = new Set();
const killAll = () => {
  for (const child of running) kill(child, 'SIGKILL');
};
process.on('exit', killAll);
// A test runner that ends this process with a signal (a timeout, ^C) runs no 'exit' handler.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal);
  });
}

/** Sends `signal` to `child`'s process group (it was spawned detached, as the group's leader). */
function kill(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/** Spawns `command` as the leader of a process group of its own, so that its children end with it. */
function start(command, args, env) {
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.output = '';
  child.printed = ''; // stdout alone: what Xvfb's -displayfd 1 writes, its warnings aside
  child.stdout.on('data', (chunk) => {
    child.output += chunk;
    child.printed += chunk;
  });
  child.stderr.on('data', (chunk) => {
    child.output += chunk;
  });
  return child;
}

/** Ends `child`'s group: SIGTERM, then SIGKILL after 3 s. */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  kill(child, 'SIGTERM');
  const timer = setTimeout(() => kill(child, 'SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

/** Resolves once `ready()` is true, or rejects after `ms` (or as soon as `child` exits) with `what`. */
async function until(ready, child, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (child.exitCode !== null)
      throw new Error(`${what}: it exited with ${child.exitCode}: ${child.output.trim()}`);
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${ms} ms: ${child.output.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A loopback port free now (another process may take it before it is used: the caller retries). */
async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

/** A W3C WebDriver error, with the command that met it. */
class WebDriverError extends Error {}

/**
 * Starts Xvfb (on the first free display, which it reports itself: no race with other suites) and
 * WebKitWebDriver on a free loopback port. Returns `{ newSession, stop }`; `stop()` deletes the open
 * sessions and ends both processes with everything they started (MiniBrowser and its web processes).
 */
export async function launchWebKit() {
  const binary = miniBrowserPath();
  const xvfb = start('Xvfb', [
    '-displayfd',
    '1',
    '-nolisten',
    'tcp',
    '-screen',
    '0',
    '1280x1024x24',
  ]);
  const sessions = new Set();
  let driver;
  try {
    // The display number on a line of its own on stdout; warnings (another X server on display 0)
    // go to stderr, and may come first.
    await until(() => /^\d+$/m.test(xvfb.printed), xvfb, 60_000, 'Xvfb');
    const display = `:${xvfb.printed.match(/^(\d+)$/m)[1]}`;
    let url;
    for (let tries = 1; !url; tries++) {
      const port = await freePort();
      driver = start('WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], {
        DISPLAY: display,
      });
      const status = () =>
        command(`http://127.0.0.1:${port}`, 'GET', '/status', undefined, 1_000).then(
          (s) => s.ready,
          () => false,
        );
      try {
        await until(status, driver, 60_000, 'WebKitWebDriver');
        url = `http://127.0.0.1:${port}`;
      } catch (err) {
        await stop(driver);
        if (tries === 3) throw err; // the port taken in between, three times: something else is wrong
      }
    }
    return {
      /** Opens a MiniBrowser window in a new session. */
      async newSession() {
        const capabilities = {
          alwaysMatch: {
            'webkitgtk:browserOptions': { binary, args: ['--automation'] },
            timeouts: { script: 90_000, pageLoad: 30_000, implicit: 0 },
          },
        };
        const { sessionId } = await command(url, 'POST', '/session', { capabilities }, 60_000);
        const session = new Session(url, sessionId);
        sessions.add(session);
        const end = session.delete.bind(session);
        session.delete = () => {
          sessions.delete(session);
          return end();
        };
        return session;
      },
      async stop() {
        await Promise.allSettled([...sessions].map((s) => s.delete()));
        await stop(driver);
        await stop(xvfb);
      },
    };
  } catch (err) {
    if (driver) await stop(driver);
    await stop(xvfb);
    throw err;
  }
}

/**
 * Starts geckodriver (scripts/setup installs it) on a free loopback port, for Debian's Firefox ESR,
 * headless, with `prefs`. Returns `{ newSession, stop }`, as launchWebKit does.
 */
export async function launchFirefox({ prefs = {} } = {}) {
  const sessions = new Set();
  let driver;
  let url;
  for (let tries = 1; !url; tries++) {
    const port = await freePort();
    driver = start('geckodriver', [`--port=${port}`, '--host=127.0.0.1'], { MOZ_HEADLESS: '1' });
    const status = () =>
      command(`http://127.0.0.1:${port}`, 'GET', '/status', undefined, 1_000).then(
        (s) => s.ready,
        () => false,
      );
    try {
      await until(status, driver, 60_000, 'geckodriver');
      url = `http://127.0.0.1:${port}`;
    } catch (err) {
      await stop(driver);
      if (tries === 3) throw err;
    }
  }
  return {
    async newSession() {
      const capabilities = {
        alwaysMatch: {
          'moz:firefoxOptions': { args: ['-headless'], prefs },
          timeouts: { script: 90_000, pageLoad: 30_000, implicit: 0 },
        },
      };
      const { sessionId } = await command(url, 'POST', '/session', { capabilities }, 60_000);
      const session = new Session(url, sessionId);
      sessions.add(session);
      return session;
    },
    async stop() {
      await Promise.allSettled([...sessions].map((s) => s.delete()));
      await stop(driver);
    },
  };
}

/** Sends one WebDriver command; resolves with its `value`, or rejects after `ms`. */
async function command(url, method, path, body, ms) {
  const init = { method, signal: AbortSignal.timeout(ms) };
  if (body !== undefined)
    Object.assign(init, {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  let response;
  try {
    response = await fetch(url + path, init);
  } catch (err) {
    throw new WebDriverError(
      `${method} ${path}: ${err.name === 'TimeoutError' ? `no answer within ${ms} ms` : err.message}`,
      { cause: err },
    );
  }
  const { value } = await response.json();
  if (!response.ok) throw new WebDriverError(`${method} ${path}: ${value.error}: ${value.message}`);
  return value;
}

/**
 * One session: its commands act on its current window (`switchTo` changes it). Scripts are functions
 * whose source runs in the page, with JSON arguments; `run` awaits what the function returns.
 */
class Session {
  #url;

  constructor(driver, id) {
    this.#url = `${driver}/session/${id}`;
  }

  #command(method, path, body, ms = 30_000) {
    return command(this.#url, method, path, body, ms);
  }

  /** Loads `url` in the current window and resolves once it has loaded. */
  navigate(url) {
    return this.#command('POST', '/url', { url }, 60_000);
  }

  /** Reloads the current window's page. */
  refresh() {
    return this.#command('POST', '/refresh', {}, 60_000);
  }

  /** Goes back in the current window's history, as the browser's Back button does. */
  back() {
    return this.#command('POST', '/back', {}, 60_000);
  }

  /**
   * Calls `fn(...args)` in the page and resolves with what its promise resolves to (JSON). A rejection
   * rejects, with the page's error name and message; the session's script timeout (90 s) bounds it.
   */
  async run(fn, ...args) {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn})(...arguments[0])).then(
        (value) => done({ value }),
        (err) => done({ error: err instanceof Error ? \`\${err.name}: \${err.message}\` : String(err) }));`;
    const answer = await this.#command('POST', '/execute/async', { script, args: [args] }, 100_000);
    if ('error' in answer) throw new WebDriverError(`in the page: ${answer.error}`);
    return answer.value;
  }

  /** The current window's handle. */
  window() {
    return this.#command('GET', '/window');
  }

  /** Opens a new window (not made current); resolves with its handle. */
  async newWindow() {
    return (await this.#command('POST', '/window/new', { type: 'window' })).handle;
  }

  /** Makes the window `handle` the current one. */
  switchTo(handle) {
    return this.#command('POST', '/window', { handle });
  }

  /** Closes the current window (no window is current until `switchTo`). */
  closeWindow() {
    return this.#command('DELETE', '/window');
  }

  /** Ends the session and closes its windows. */
  delete() {
    return this.#command('DELETE', '', undefined, 15_000);
  }
}
