// The wasm linear memory of a package loaded from its tarball, where no export hands it out: the
// WebAssembly constructors are wrapped before the package is imported, and every Memory an
// instance exports is kept. `installWasmSpy` is self-contained, so a page can run its source too
// (Playwright's addInitScript); in Node call it before the import.

/** Wraps WebAssembly.Instance, instantiate and instantiateStreaming; the Memories are kept in globalThis.__wasmMemories. */
export function installWasmSpy() {
  const W = globalThis.WebAssembly;
  if (globalThis.__wasmMemories) return;
  const memories = [];
  globalThis.__wasmMemories = memories;
  const record = (instance) => {
    for (const value of Object.values(instance.exports))
      if (value instanceof W.Memory) memories.push(value);
    return instance;
  };
  W.Instance = new Proxy(W.Instance, {
    construct: (target, args, newTarget) => record(Reflect.construct(target, args, newTarget)),
  });
  const instantiate = W.instantiate;
  W.instantiate = async (...args) => {
    const result = await instantiate.apply(W, args);
    record(result instanceof W.Instance ? result : result.instance);
    return result;
  };
  const streaming = W.instantiateStreaming;
  if (streaming) {
    W.instantiateStreaming = async (...args) => {
      const result = await streaming.apply(W, args);
      record(result.instance);
      return result;
    };
  }
}

/** The bytes of the newest wasm memory seen (the package's instance has one; a module imported again under another URL makes another). */
export const wasmMemoryBytes = () => globalThis.__wasmMemories?.at(-1)?.buffer.byteLength ?? 0;
