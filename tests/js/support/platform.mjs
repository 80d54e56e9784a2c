// The outbox's platform in Node, made of fakes (its `platform` option): the tabs of one `origin()`
// share an IndexedDB (fake-indexeddb), Web Locks (a small LockManager below) and a channel (Node's
// own BroadcastChannel), as the tabs and the service worker of one origin do; each tab has its own document and window,
// whose life a test drives (hide, show, freeze, resume, leave, go offline). A Plant Store of the
// test's answers each request when the test says (`store.answer`), so that no wait is on the clock.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';

/** An origin: its tabs share the database, the locks and the channels. */
export function origin() {
  const indexedDB = new IDBFactory();
  const locks = new LockManager();
  let tabs = 0;
  return {
    indexedDB,
    locks,
    /** The records of the outbox `name` in the origin's IndexedDB, in the order of their keys. */
    records: (name) =>
      new Promise((resolve, reject) => {
        const request = indexedDB.open(`plant-store-outbox:${name}`);
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const all = request.result.transaction('entries').objectStore('entries').getAll();
          all.onsuccess = () => resolve(all.result);
          all.onerror = () => reject(all.error);
          request.result.close();
        };
      }),
    /**
     * A service worker of the origin: `platform` for `deliverPlants` (no document), and `fire(type,
     * init)`, which dispatches an event as the browser does and resolves or rejects as the promise
     * its listener gave `waitUntil` (no promise: resolves at once).
     */
    worker() {
      const id = ++tabs;
      const navigator = { locks: locks.of(id), onLine: true };
      const platform = Object.assign(new EventTarget(), { indexedDB, BroadcastChannel, navigator });
      const fire = async (type, init) => {
        const waited = [];
        const event = Object.assign(new Event(type), init, {
          waitUntil: (promise) => waited.push(promise),
        });
        platform.dispatchEvent(event);
        await Promise.all(waited);
      };
      return { platform, fire, crash: () => locks.crash(id) };
    },
    /** A new tab of the origin: `platform` for the outbox, and its life. */
    tab() {
      const id = ++tabs;
      const document = Object.assign(new EventTarget(), { visibilityState: 'visible' });
      const window = new EventTarget();
      const navigator = { locks: locks.of(id), onLine: true };
      const platform = Object.assign(window, {
        indexedDB,
        IDBKeyRange,
        BroadcastChannel,
        navigator,
        document,
      });
      const page = (type, init) => window.dispatchEvent(Object.assign(new Event(type), init));
      return {
        platform,
        hide() {
          document.visibilityState = 'hidden';
          document.dispatchEvent(new Event('visibilitychange'));
        },
        show() {
          document.visibilityState = 'visible';
          document.dispatchEvent(new Event('visibilitychange'));
        },
        freeze: () => document.dispatchEvent(new Event('freeze')),
        resume: () => document.dispatchEvent(new Event('resume')),
        /** `pagehide`: into the back/forward cache when `persisted`, else for good. */
        pagehide: (persisted) => page('pagehide', { persisted }),
        pageshow: (persisted) => page('pageshow', { persisted }),
        offline() {
          navigator.onLine = false;
          page('offline');
        },
        online() {
          navigator.onLine = true;
          page('online');
        },
        /** The tab dies as a crash ends it: its locks go, nothing of it runs again. */
        crash: () => locks.crash(id),
      };
    },
  };
}

/**
 * The Web Locks API, in memory: exclusive locks granted in the order asked, each held until its
 * callback's promise settles; a signal drops a request not yet granted; `query()` lists what is
 * held. `of(tab)` is one tab's view of it, so that a crashed tab's locks can be let go.
 */
class LockManager {
  #held = new Map(); // name → { tab, release }
  #queue = []; // { name, tab, grant, signal }

  of(tab) {
    return {
      request: (name, options, callback) => this.#request(tab, name, options, callback),
      query: async () => ({
        held: [...this.#held].map(([name, { tab }]) => ({ name, clientId: String(tab) })),
        pending: this.#queue.map(({ name, tab }) => ({ name, clientId: String(tab) })),
      }),
    };
  }

  #request(tab, name, { signal } = {}, callback) {
    return new Promise((resolve, reject) => {
      const asked = {
        name,
        tab,
        grant: () => {
          const done = Promise.resolve().then(callback);
          const release = () => {
            if (this.#held.get(name)?.release !== release) return;
            this.#held.delete(name);
            this.#next();
          };
          this.#held.set(name, { tab, release });
          done.then(resolve, reject).finally(release);
        },
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => {
        const at = this.#queue.indexOf(asked);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        reject(signal.reason);
      });
      this.#queue.push(asked);
      this.#next();
    });
  }

  #next() {
    for (const asked of [...this.#queue]) {
      if (this.#held.has(asked.name)) continue;
      this.#queue.splice(this.#queue.indexOf(asked), 1);
      asked.grant();
    }
  }

  /** Lets go of every lock `tab` holds or asked for, as the browser does when it ends a tab. */
  crash(tab) {
    this.#queue = this.#queue.filter((asked) => asked.tab !== tab);
    for (const [name, held] of this.#held) {
      if (held.tab !== tab) continue;
      this.#held.delete(name);
    }
    this.#next();
  }
}

/**
 * A Plant Store of the test's, as the outbox's `fetch`: each request waits until the test answers
 * it (`answer(status, body)`, `lose()`: the connection breaks; or `auto` answers at once). It
 * honours `Idempotency-Key` only when `keys` is true; a plant it holds is "duplicate id".
 */
export function plantStore({ keys = false, auto = true } = {}) {
  const plants = new Map(); // id → plant
  const seen = new Map(); // key → the answer sent
  const waiting = [];
  const requests = [];
  const answered = (status, body, headers) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  /** The store's own answer: created, or "duplicate id" for a plant it holds. */
  const decide = (request) => {
    const plant = JSON.parse(request.body);
    const key = request.headers.get('idempotency-key');
    if (keys && key && seen.has(key)) return seen.get(key);
    if (plants.has(String(plant.id))) {
      return [400, { error: 3, message: `a plant with id ${plant.id} already exists` }];
    }
    plants.set(String(plant.id), plant);
    const answer = [
      200,
      { name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) },
    ];
    if (keys && key) seen.set(key, answer);
    return answer;
  };
  const fetch = (url, init) =>
    new Promise((resolve, reject) => {
      const request = { url, body: init.body, headers: init.headers, signal: init.signal };
      requests.push(request);
      const pending = {
        request,
        /** Answers as the store would (created, or duplicate), or with `status`, `body`, `headers`. */
        answer: (status, body, headers) => {
          const [s, b] = status === undefined ? decide(request) : [status, body];
          resolve(answered(s, b, headers));
        },
        /** The store did it, then answered `status` (a proxy's 503 after its upstream wrote). */
        after: (status) => {
          decide(request);
          resolve(answered(status, { error: 1, message: 'the upstream went away' }));
        },
        /** The store did it, and the answer is lost. */
        lose: () => {
          decide(request);
          reject(new TypeError('fetch failed', { cause: new Error('other side closed') }));
        },
      };
      init.signal?.addEventListener('abort', () => reject(init.signal.reason));
      if (auto) return pending.answer();
      waiting.push(pending);
    });
  return {
    fetch,
    plants,
    requests,
    /** The next request not answered yet, once it comes (bounded: none came in `ms`). */
    async next(ms = 30_000) {
      const end = Date.now() + ms;
      while (!waiting.length) {
        if (Date.now() > end) throw new Error('no request came');
        await new Promise((resolve) => setImmediate(resolve));
      }
      return waiting.shift();
    },
    /** The plant ids the requests sent, in order. */
    ids: () => requests.map((request) => JSON.parse(request.body).id),
  };
}

/** Resolves once `check()` holds, looking after each turn of the event loop; fails after `ms`. */
export async function until(check, what, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
