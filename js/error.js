// PlantStoreError, the one error class of plant-store-client. It is JavaScript because a class that
// extends Error (a real stack, `instanceof Error`, a literal `name`) is the one thing wasm-bindgen
// cannot write. Rust builds the error of every call (Error::to_js in src/js/error.rs) and re-exports
// the class; the entries build one themselves when the .wasm cannot be loaded (js/entries/api.js).

/** Every failure of plant-store-client is a PlantStoreError; branch on `kind`. */
export class PlantStoreError extends Error {
  constructor(kind, message, details) {
    super(
      message,
      details !== undefined && 'cause' in details ? { cause: details.cause } : undefined,
    );
    this.kind = kind;
    this.attempts = details?.attempts ?? 0;
    this.maybeCreated = details?.maybeCreated ?? false;
    if (details !== undefined) {
      if (details.status !== undefined) this.status = details.status;
      if (details.code !== undefined) this.code = details.code;
      if (details.issues !== undefined) this.issues = details.issues;
      if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    }
  }

  /** True for a PlantStoreError, also one from another realm or another copy of this package. */
  static is(value) {
    try {
      return (
        Function.prototype[Symbol.hasInstance].call(PlantStoreError, value) ||
        (value instanceof Error &&
          value.name === 'PlantStoreError' &&
          typeof value.kind === 'string')
      );
    } catch {
      return false; // a revoked Proxy
    }
  }

  /**
   * `err instanceof PlantStoreError` holds for the errors of every copy of the class: the default build's
   * and the outbox's, when a page loads both.
   */
  static [Symbol.hasInstance](value) {
    // biome-ignore lint/complexity/noThisInStatic: the class asked, PlantStoreError or a subclass of it
    const asked = this;
    return asked === PlantStoreError
      ? PlantStoreError.is(value)
      : Function.prototype[Symbol.hasInstance].call(asked, value);
  }

  toJSON() {
    const { name, kind, message, status, code, issues, attempts, maybeCreated, retryAfterMs } =
      this;
    return { name, kind, message, status, code, issues, attempts, maybeCreated, retryAfterMs };
  }
}
Object.defineProperty(PlantStoreError.prototype, 'name', {
  value: 'PlantStoreError',
  writable: true,
  configurable: true,
});
