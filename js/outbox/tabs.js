// How the tabs of one outbox share the sending, and when a tab lets go (and, last, one round of a tab):
// - one round at a time across them: the Web Lock `plant-store-outbox:<name>`, held only while a
//   round runs and given back at once when the page hides, freezes or leaves (a page that hid
//   leaves the sending to the visible tabs for a second, then sends on);
// - hints of what changed, over a BroadcastChannel: the keys to read again from the store (typed
//   and versioned; never the data), and that a tab let go;
// - the page's lifecycle (hidden, frozen, cached, back) and the network coming back.

const HINT = 'plant-store-outbox';
/** How long a page that hid leaves the sending to the visible tabs, before it sends on. */
const YIELD_MS = 1_000;

/**
 * The coordination of the outbox `name` for one tab; `shared` when other tabs may open it (a store
 * of the app's serves one outbox). Its `listen(on)` is told: `on.heard(keys)`, another tab changed
 * these; `on.released()`, another tab let go, or this page's second after it hid is over;
 * `on.leave(suspend)`, this page hides (false), or freezes or leaves (true); `on.back()`, it runs
 * again; `on.online()`, the network is back.
 */
export function tabs(name, shared) {
  const channelName = `plant-store-outbox:${name}`;
  let locks = shared && globalThis.navigator?.locks;
  let release = null;
  let queued = null;
  const warn = (why) =>
    console.warn(
      `plant-store-client/outbox: ${why}, so every tab of the outbox sends: an entry ` +
        'being sent when its tab closes is sent again once its call has surely ended, with the same Idempotency-Key',
    );
  let told = !shared || locks;
  let channel =
    shared && typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName) : null;
  const post = (hint) => channel?.postMessage({ type: HINT, v: 1, ...hint });
  const listeners = [];
  /** The timer of the second after the page hid: no round of its runs meanwhile, queued ones included. */
  let yielding = null;
  return {
    listen(on) {
      if (channel) {
        channel.onmessage = ({ data }) => {
          if (data?.type !== HINT || data.v !== 1) return;
          if (Array.isArray(data.keys))
            on.heard(data.keys.filter((key) => typeof key === 'string'));
          if (data.released) on.released();
        };
      }
      const listen = (target, type, listener) => {
        if (typeof target?.addEventListener !== 'function') return;
        target.addEventListener(type, listener);
        listeners.push([target, type, listener]);
      };
      const document = globalThis.document;
      const yielded = () => {
        clearTimeout(yielding);
        yielding = null;
        on.released();
      };
      listen(document, 'visibilitychange', () => {
        // Visible again within the second, it is a visible tab: it sends at once.
        if (document.visibilityState !== 'hidden') return yielding && yielded();
        on.leave(false);
        clearTimeout(yielding);
        yielding = setTimeout(yielded, YIELD_MS);
      });
      listen(document, 'freeze', () => on.leave(true));
      listen(document, 'resume', () => on.back());
      listen(globalThis, 'pagehide', () => on.leave(true));
      listen(globalThis, 'pageshow', (event) => event.persisted && on.back());
      listen(globalThis, 'online', () => on.online());
    },
    /**
     * Runs `round(locked)` holding the lock, and gives it back when the round ends or `letGo()` is
     * called. Without Web Locks, or when a request for it fails (a document no longer fully
     * active), the round runs without it, and the console says so once. In the second after the
     * page hid, it does not run.
     */
    async withLock(round) {
      if (yielding) return;
      if (!told) told = warn('this browser has no Web Locks API') ?? true;
      if (!locks) return round(!shared);
      let granted = false;
      queued = new AbortController();
      try {
        return await locks.request(channelName, { signal: queued.signal }, () => {
          granted = true;
          return new Promise((resolve, reject) => {
            release = resolve;
            round(true).then(resolve, reject);
          }).finally(() => {
            release = null;
          });
        });
      } catch (cause) {
        if (granted || queued?.signal.aborted) return;
        locks = null;
        warn(`a request for its Web Lock failed (${cause?.name ?? cause})`);
        return round(false);
      }
    },
    /** Gives the lock back now, or the request for it, and tells the other tabs when it was held. */
    letGo() {
      queued?.abort();
      if (!release) return;
      release();
      post({ released: true });
    },
    /** Tells the other tabs that the records of `keys` changed. */
    told: (keys) => post({ keys }),
    close() {
      clearTimeout(yielding);
      for (const [target, type, listener] of listeners) target.removeEventListener(type, listener);
      // A change written before close() was called and told after it has no one to tell.
      channel?.close();
      channel = null;
    },
  };
}

/**
 * One round of a tab: sends what `due(take)` reads, `concurrency` at once, until nothing is left or
 * `going()` turns false; `signal` aborts its calls. `feed()` reads again what is due into the round
 * under way (until it ends), so that what is added meanwhile is sent beside a slow call. Each
 * sender writes an entry's answer with the mark of its next entry, in one `changes` transaction.
 */
export function senders({
  take,
  going,
  signal,
  concurrency,
  due,
  changes,
  send,
  unrecorded,
  warn,
}) {
  const [queue, tried] = [[], new Set()];
  let [running, reading, over] = [0, 0, false];
  let resolve;
  const done = new Promise((settle) => {
    resolve = settle;
  });
  const sender = async () => {
    running++;
    for (let answer; ; ) {
      const key = going() ? queue.shift() : undefined;
      const list = [answer, key && [key, 'take', take]].filter(Boolean);
      if (!list.length) break;
      const written = await changes(list).catch((error) => list.map(() => ({ error })));
      if (answer && written[0].error) unrecorded(answer[0], written[0].error);
      const taken = key && written.at(-1);
      answer = undefined;
      if (taken?.error) warn(`its store could not take entry ${key}`, taken.error);
      if (taken?.step?.[0] !== 'put' || signal.aborted) continue;
      answer = [key, 'settled', await send(taken.step[1], signal)];
    }
    running--;
    fill();
  };
  const fill = () => {
    while (running < concurrency && queue.length && going()) sender();
    if (running || reading) return;
    over = true;
    resolve();
  };
  const feed = () => {
    if (over) return;
    reading++;
    due(take)
      .then(
        (keys) => {
          for (const key of keys.filter((key) => !tried.has(key))) {
            tried.add(key);
            queue.push(key);
          }
        },
        () => {},
      )
      .finally(() => {
        reading--;
        fill();
      });
  };
  feed();
  return { done, feed };
}
