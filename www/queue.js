// The queue panel: a PlantOutbox (plant-store-client/outbox) keeps each plant added to it in this
// browser's IndexedDB and sends it, once, when the store can be reached: across reloads, tabs and a
// lost network. "Work offline" pauses sending; the bar shows the queue draining; each entry shows
// its state. The token is read from its input at each request, never stored.
const $ = (id) => document.getElementById(id);
const SHOWN = 10;
const DONE = new Set(['created', 'rejected', 'uncertain']);
const STATE_TEXT = {
  pending: 'waiting', sending: 'sending', created: 'created', rejected: 'refused', uncertain: 'uncertain',
};
/** The service's `error` for a duplicate id: sending such an entry again can only fail again. */
const DUPLICATE_ID = 3;

/**
 * Opens the queue and draws it; `h` builds elements, `baseUrl()` and `token()` read the connection
 * inputs, `told(text)` shows what a queue action did in the Result card. Resolves to
 * `{ add(plant) }`, which rejects as `createPlant` does for an invalid plant. When the connection
 * drops before the queue's code has arrived, it says so and opens once the browser is back online.
 */
export async function openQueue({ h, baseUrl, token, told }) {
  const { PlantOutbox } = await loadOnline(() => import('./pkg/outbox/index.js'));
  const offline = $('queue-offline');
  let outbox;
  let drawing = false;

  async function open() {
    outbox?.close();
    outbox = await loadOnline(() => PlantOutbox.open({ baseUrl: baseUrl(), getToken: () => token(), name: 'demo' }));
    if (offline.checked) outbox.pause();
    outbox.addEventListener('change', redraw);
    redraw();
  }

  // Many changes come at once while the queue drains: one drawing per frame.
  function redraw() {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => { drawing = false; draw(outbox.entries()); });
  }

  function draw(entries) {
    const done = entries.filter((e) => DONE.has(e.state)).length;
    const waiting = entries.length - done;
    $('queue-count').textContent = entries.length ? String(entries.length) : '';
    $('queue-empty').hidden = entries.length > 0;
    $('queue-progress').hidden = waiting === 0;
    $('queue-bar').value = entries.length ? done / entries.length : 0;
    $('queue-progress-text').textContent = offline.checked
      ? `paused: ${waiting} waiting`
      : `${done} of ${entries.length} sent`;
    $('queue-clear').hidden = !entries.some((e) => e.state === 'created');
    $('queue').replaceChildren(...entries.slice(-SHOWN).reverse().map(row));
  }

  function row(entry) {
    const meta = [`id ${String(entry.plant.id)}`, `${entry.attempts} ${entry.attempts === 1 ? 'attempt' : 'attempts'}`];
    if (entry.state === 'pending' && entry.nextAttemptAt) {
      meta.push(`next try ${new Date(entry.nextAttemptAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`);
    }
    if (entry.error && entry.state !== 'created') meta.push(entry.error.message);
    const name = `“${entry.plant.name}”`;
    const actions = entry.state === 'rejected' || entry.state === 'uncertain'
      ? h('span', { class: 'entry-actions' },
        entry.error?.code !== DUPLICATE_ID && button('Send again', () => outbox.retry(entry.key), `${name} is sent again.`),
        button('Remove', () => outbox.remove(entry.key), `${name} was removed from the queue.`))
      : null;
    return h('li', { class: `entry ${entry.state}`, 'data-key': entry.key },
      h('span', { class: 'dot', 'aria-hidden': 'true' }),
      h('span', { class: 'entry-text' }, `“${entry.plant.name}”`, h('span', { class: 'state' }, STATE_TEXT[entry.state])),
      h('span', { class: 'entry-meta' }, meta.join(' · ')),
      actions,
    );
  }

  function button(label, action, done) {
    const el = h('button', { type: 'button', class: 'quiet' }, label);
    el.addEventListener('click', () => action().then(() => told(done), (err) => console.error(err)));
    return el;
  }

  offline.addEventListener('change', () => {
    if (offline.checked) outbox.pause();
    else outbox.resume();
    redraw();
  });
  $('queue-clear').addEventListener('click', async () => {
    for (const entry of outbox.entries()) if (entry.state === 'created') await outbox.remove(entry.key);
    told('The created plants were cleared from the queue.');
  });
  await open();
  offline.disabled = false;
  return { add: (plant) => outbox.add(plant), reopen: open };
}

/**
 * `load()`, tried again each time the browser comes back online while it fails for the network: the
 * queue's module and its .wasm may not have arrived when the connection dropped, the one moment an
 * offline queue matters; the package fetches its .wasm again on the next try. Any other failure
 * (the .wasm not served, or not wasm: a misconfigured build) is shown as the package words it.
 */
async function loadOnline(load) {
  const empty = $('queue-empty');
  const placeholder = empty.textContent;
  for (;;) {
    try {
      const loaded = await load();
      empty.textContent = placeholder;
      return loaded;
    } catch (err) {
      // A PlantStoreError of kind `network` (the .wasm's fetch failed), or the browser's TypeError
      // for a module script it could not fetch.
      if (err?.kind !== 'network' && !(err instanceof TypeError)) {
        empty.textContent = `The queue could not open: ${err?.message ?? err}`;
        throw err;
      }
      empty.textContent = 'Offline: the queue’s code could not be downloaded. It loads as soon as the connection is back.';
      console.warn('the queue waits for the connection:', err?.message ?? err);
      // When the browser says it is online all along (the server dropped the request), in a while.
      await new Promise((resolve) => {
        addEventListener('online', resolve, { once: true });
        if (navigator.onLine) setTimeout(resolve, 10_000);
      });
      empty.textContent = 'Loading the queue…';
    }
  }
}
