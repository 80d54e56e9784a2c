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

/** Lets a promise we do not wait for (a cancelled body) settle without an unhandled rejection. */
export function ignore(promise) {
  promise.then(undefined, () => {});
}

/** `stream.getReader()`, called from wasm with its exception caught. */
export function getReader(stream) {
  return stream.getReader();
}
