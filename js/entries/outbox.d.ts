// The npm package's `PlantOutbox`, the EventTarget over `OutboxCore` (js/entries/outbox.js);
// scripts/finish-pkg.mjs appends it to the types of `plant-store-client/outbox`.

/** Records in memory: an outbox store for tests and for one process. */
export declare class MemoryStore implements OutboxStore {
  constructor();
  getAll(): Promise<object[]>;
  put(record: { key: string }): Promise<void>;
  delete(key: string): Promise<void>;
}

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
    type: K, listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListener | EventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof PlantOutboxEventMap>(
    type: K, listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListener | EventListenerObject | null, options?: boolean | EventListenerOptions): void;
}
