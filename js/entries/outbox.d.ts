// What the npm package's outbox entry adds (js/entries/outbox.js): `PlantOutbox.open`, which waits
// for the .wasm. scripts/finish-pkg.mjs appends it to the types of `plant-store-client/outbox`.

export declare namespace PlantOutbox {
  /** Opens the outbox once the .wasm is loaded: a `config` PlantStoreError when a setting is wrong or the store cannot be opened (the message names the cause and the fix). */
  function open(options: PlantOutboxOptions): Promise<PlantOutbox>;
}
