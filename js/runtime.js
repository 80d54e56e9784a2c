// The JavaScript half of plant-store-client: the error class users branch on, and the guard that
// turns a caller's AbortSignal and the timeout into one signal. The wasm module imports both.

/** Every failure of plant-store-client is a PlantStoreError; branch on `kind`. */
export class PlantStoreError extends Error {
  constructor(kind, message, details) {
    super(message, details !== undefined && 'cause' in details ? { cause: details.cause } : undefined);
    this.kind = kind;
    if (details !== undefined) {
      if (details.status !== undefined) this.status = details.status;
      if (details.code !== undefined) this.code = details.code;
      if (details.issues !== undefined) this.issues = details.issues;
    }
  }

  /** True for a PlantStoreError, also one from another realm or another copy of this package. */
  static is(value) {
    return value instanceof PlantStoreError ||
      (value instanceof Error && value.name === 'PlantStoreError' && typeof value.kind === 'string');
  }

  toJSON() {
    const { name, kind, message, status, code, issues } = this;
    return { name, kind, message, status, code, issues };
  }
}
Object.defineProperty(PlantStoreError.prototype, 'name', {
  value: 'PlantStoreError', writable: true, configurable: true,
});

const STOPPED = Symbol('stopped');

/**
 * One call's cancellation: aborts `signal` when any of the caller's signals aborts (reason 1) or the
 * timeout fires (reason 2). `race` settles with the given promise or rejects once stopped, so a
 * fetch that ignores its signal cannot hang the call. `dispose` clears the timer and listeners.
 */
export class CallGuard {
  constructor(signals, timeoutMs) {
    this.controller = new AbortController();
    this.reason = 0;
    this.cause = undefined;
    this.signals = signals;
    this.timer = undefined;
    this.onAbort = () => this.stop(1);
    this.stopped = new Promise((_, reject) => { this.rejectStopped = reject; });
    this.stopped.catch(() => {});
    for (const s of signals) {
      if (s.aborted) { this.stop(1); return; }
      s.addEventListener('abort', this.onAbort);
    }
    this.timer = setTimeout(() => this.stop(2), timeoutMs);
  }

  stop(reason) {
    if (this.reason !== 0) return;
    this.reason = reason;
    if (reason === 1) {
      const aborted = this.signals.find((s) => s.aborted);
      this.cause = aborted === undefined ? undefined : aborted.reason;
    }
    this.controller.abort(reason === 2 ? new DOMException('timed out', 'TimeoutError') : this.cause);
    this.rejectStopped(STOPPED);
  }

  get signal() { return this.controller.signal; }

  race(promise) { return Promise.race([promise, this.stopped]); }

  dispose() {
    clearTimeout(this.timer);
    for (const s of this.signals) s.removeEventListener('abort', this.onAbort);
  }
}

/**
 * One exchange with the server: `fetch(url, init)`, then at most `okLimit` (status 200) or
 * `errorLimit` (any other status) bytes of the body; the rest is cancelled unread. Every wait is
 * raced against the guard. Resolves to an Exchange; rejects with what fetch or the body threw (the
 * caller tells network, timeout and abort apart through the guard). `headers` is the client's frozen
 * header object; `authorization` is set only when the token comes from getToken.
 */
export async function exchange(fetch, url, headers, authorization, body, guard, okLimit, errorLimit) {
  const h = authorization === undefined ? headers : { ...headers, Authorization: authorization };
  const init = { method: 'POST', headers: h, body, credentials: 'omit', redirect: 'manual', signal: guard.signal };
  const response = await guard.race(Promise.resolve(fetch(url, init)));
  if (!(response instanceof Response)) return new Exchange(-1, false, EMPTY, true);
  const status = response.status;
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
    if (response.body !== null) response.body.cancel().catch(() => {});
    return new Exchange(status, true, EMPTY, true);
  }
  const limit = status === 200 ? okLimit : errorLimit;
  const stream = response.body;
  if (stream === null) return new Exchange(status, false, EMPTY, true);
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await guard.race(reader.read());
    if (done) return new Exchange(status, false, join(chunks, size), true);
    if (!(value instanceof Uint8Array)) throw new TypeError('the body stream yielded a chunk that is not bytes');
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      reader.cancel().catch(() => {});
      return new Exchange(status, false, join(chunks, limit), false);
    }
    chunks.push(value);
    size += value.length;
  }
}

const EMPTY = new Uint8Array(0);

function join(chunks, size) {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
  return bytes;
}

/** What the server answered: its status (-1: fetch resolved to no Response), and the body read. */
export class Exchange {
  constructor(status, redirect, body, complete) {
    this.status = status;
    this.redirect = redirect;
    this.body = body;
    this.complete = complete;
  }
}
