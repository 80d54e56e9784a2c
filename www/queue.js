// The queue panel: a PlantOutbox (plant-store-client/outbox) keeps each plant added to it in this
// browser's IndexedDB and sends it, once, when the store can be reached: across reloads, tabs and a
// lost network, and in Chromium with no page open (the service worker of sw.js). "Work offline"
// pauses sending; the bar shows the queue draining; each entry shows its state. The page reads the
// token from its input at each request, and keeps it for the worker in Cache Storage.
const $ = (id) => document.getElementById(id);
const SHOWN = 10;
const DONE = new Set(['created', 'rejected', 'uncertain']);
const STATE_TEXT = {
  pending: 'waiting',
  sending: 'sending',
  created: 'created',
  rejected: 'refused',
  uncertain: 'uncertain',
};
/** The service's `error` for a duplicate id: sending such an entry again can only fail again. */
const DUPLICATE_ID = 3;

/**
 * Registers the demo's service worker (sw.js), which delivers the queue's plants to `baseUrl` with
 * no page open where the browser has Background Sync (Chromium), with the token the page keeps for
 * it in Cache Storage. Where it cannot, the pages deliver, as they do anyway.
 */
async function deliverWithNoPage(baseUrl, token) {
  if (!navigator.serviceWorker) return;
  try {
    await (await caches.open('plant-store-demo')).put('token', new Response(token));
    const query = new URLSearchParams({ baseUrl });
    await navigator.serviceWorker.register(`./sw.js?${query}`, { type: 'module' });
  } catch (err) {
    console.warn('the queue is sent by its pages only:', err?.message ?? err);
  }
}

/**
 * Opens the queue of `PlantOutbox` and draws it; `h` builds elements, `baseUrl()` and `token()` read
 * the connection inputs, `told(text)` shows what a queue action did in the Result card, `failed(err)`
 * shows an action's failure there, and `changed(entry)` hears of each entry's change. Resolves to
 * `{ add(plant), reopen(), isOpen() }`, also when the queue cannot open with the connection's settings: the
 * panel says why, and `add` rejects with that error (a `config` PlantStoreError) until `reopen()`
 * (after the base URL changed) opens it. `add` rejects as `createPlant` does for an invalid plant.
 */
export async function openQueue({ PlantOutbox, h, baseUrl, token, told, failed, changed }) {
  const offline = $('queue-offline');
  const status = $('queue-status');
  let outbox = null; // the open outbox, null while it opens or when it could not
  let opening; // the last open: its outbox, or why it failed
  let drawing = false;

  async function open() {
    outbox?.close();
    outbox = null;
    status.hidden = true;
    const settings = { baseUrl: baseUrl(), getToken: () => token(), name: 'demo' };
    const opened = PlantOutbox.open(settings);
    opening = opened;
    let next;
    try {
      next = await opened;
    } catch (err) {
      if (opening !== opened) return; // a newer open took over
      // Its entries are not shown while no outbox can act on them.
      $('queue').replaceChildren();
      for (const id of ['queue-empty', 'queue-progress', 'queue-clear']) $(id).hidden = true;
      $('queue-count').textContent = '';
      status.textContent = `The queue is stopped: ${err?.message ?? err}. Fix the base URL under “Connection”: the plants it keeps stay in this browser.`;
      status.hidden = false;
      return;
    }
    if (opening !== opened) return next.close();
    outbox = next;
    deliverWithNoPage(settings.baseUrl, token());
    if (offline.checked) outbox.pause();
    outbox.addEventListener('change', (event) => {
      redraw();
      changed(event.detail);
    });
    redraw();
  }

  // Many changes come at once while the queue drains: one drawing per frame.
  function redraw() {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      if (outbox) draw(outbox.entries());
    });
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
    const meta = [
      `id ${String(entry.plant.id)}`,
      `${entry.attempts} ${entry.attempts === 1 ? 'attempt' : 'attempts'}`,
    ];
    if (entry.state === 'pending' && entry.nextAttemptAt) {
      meta.push(
        `next try ${new Date(entry.nextAttemptAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`,
      );
    }
    if (entry.error && entry.state !== 'created') meta.push(entry.error.message);
    const name = `“${entry.plant.name}”`;
    // Uncertain: a request may have created it, then "duplicate id": it is most likely there.
    const actions =
      entry.state === 'rejected' || entry.state === 'uncertain'
        ? h(
            'span',
            { class: 'entry-actions' },
            entry.state === 'uncertain' &&
              button(
                'It is there',
                () => outbox.markCreated(entry.key),
                `${name} is marked created.`,
              ),
            entry.error?.code !== DUPLICATE_ID &&
              button('Send again', () => outbox.retry(entry.key), `${name} is sent again.`),
            button('Remove', () => outbox.remove(entry.key), `${name} was removed from the queue.`),
          )
        : null;
    return h(
      'li',
      { class: `entry ${entry.state}`, 'data-key': entry.key },
      h('span', { class: 'dot', 'aria-hidden': 'true' }),
      h(
        'span',
        { class: 'entry-text' },
        `“${entry.plant.name}”`,
        h('span', { class: 'state' }, STATE_TEXT[entry.state]),
      ),
      h('span', { class: 'entry-meta' }, meta.join(' · ')),
      actions,
    );
  }

  function button(label, action, done) {
    const el = h('button', { type: 'button', class: 'quiet' }, label);
    el.addEventListener('click', () => action().then(() => told(done), failed));
    return el;
  }

  offline.addEventListener('change', () => {
    if (offline.checked) outbox?.pause();
    else outbox?.resume();
    redraw();
  });
  $('queue-clear').addEventListener('click', async () => {
    try {
      for (const entry of outbox?.entries() ?? [])
        if (entry.state === 'created') await outbox.remove(entry.key);
      told('The created plants were cleared from the queue.');
    } catch (err) {
      failed(err);
    }
  });
  await open();
  offline.disabled = false;
  return {
    // The last open's outbox, or its error, which names the setting (not the closed outbox's).
    add: async (plant) => (await opening).add(plant),
    reopen: open,
    isOpen: () => outbox !== null,
  };
}
