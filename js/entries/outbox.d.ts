// The npm package's `PlantOutbox`, the EventTarget over `OutboxCore` (js/entries/outbox.js);
// scripts/finish-pkg.mjs appends it to the types of `plant-store-client/outbox`.

/** Records in memory: an outbox store for tests and for one process. */
export declare class MemoryStore implements OutboxStore {
  constructor();
  getAll(): Promise<object[]>;
  put(record: { key: string }): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A durable outbox: each plant added is stored, then sent (on open, on add, when the page comes online or
 * into view, at its next attempt time, on `flush()`) until the store answers, always with its own
 * `Idempotency-Key`. One tab sends at a time. Listen for `change` events (`CustomEvent<OutboxChange>`).
 */
export interface PlantOutbox extends OutboxOperations {}
export declare class PlantOutbox extends EventTarget {
  private constructor();
  /** Opens the outbox: a `config` PlantStoreError when a setting is wrong or the store cannot be opened (the message names the cause). */
  static open(options: PlantOutboxOptions): Promise<PlantOutbox>;
}
