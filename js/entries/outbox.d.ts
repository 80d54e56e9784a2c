// The npm package's `PlantOutbox`, the EventTarget over `OutboxCore` (js/entries/outbox.js);
// scripts/finish-pkg.mjs appends it to the types of `plant-store-client/outbox`.

/** Records in memory: an outbox store for tests and for one process. */
export declare class MemoryStore implements OutboxStore {
  constructor();
  getAll(): Promise<object[]>;
  put(record: { key: string }): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A listener of any event (the DOM's `EventListenerOrEventListenerObject`, which a project without the DOM library lacks). */
export type OutboxListener = ((event: Event) => void) | { handleEvent(event: Event): void };
/** The DOM's `AddEventListenerOptions`. */
export interface OutboxListenerOptions { capture?: boolean; once?: boolean; passive?: boolean; signal?: AbortSignal }

/** The events of a `PlantOutbox`. */
export interface PlantOutboxEventMap {
  /** An entry was added or changed (`detail`: the entry as it now is), or removed (`{ key, removed: true }`). */
  change: CustomEvent<OutboxChange>;
  /**
   * The outbox closed on its own (`detail`: why): another page opened a newer version of its database, or the
   * browser closed it. Its entries are safe; open it again (after a reload, for a newer release).
   */
  close: CustomEvent<string>;
}

/**
 * A durable outbox: each plant added is stored, then sent (on open, on add, when the page comes online or
 * into view, at its next attempt time, on `flush()`) until the store answers, always with its own
 * `Idempotency-Key`. With the Web Locks API one tab sends at a time, and another takes over when it closes.
 */
export interface PlantOutbox extends OutboxOperations {}
export declare class PlantOutbox extends EventTarget {
  private constructor();
  /** Opens the outbox: a `config` PlantStoreError when a setting is wrong or the store cannot be opened (the message names the cause). */
  static open(options: PlantOutboxOptions): Promise<PlantOutbox>;
  addEventListener<K extends keyof PlantOutboxEventMap>(
    type: K, listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void, options?: boolean | OutboxListenerOptions): void;
  addEventListener(type: string, listener: OutboxListener | null, options?: boolean | OutboxListenerOptions): void;
  removeEventListener<K extends keyof PlantOutboxEventMap>(
    type: K, listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void, options?: boolean | { capture?: boolean }): void;
  removeEventListener(type: string, listener: OutboxListener | null, options?: boolean | { capture?: boolean }): void;
}
