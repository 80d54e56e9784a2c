// The demo page: validates the form as the user types, sends it with createPlant, shows the answer
// and a short history; "Add to queue" hands the plant to the queue panel (queue.js) instead. The token stays in its input: it is never logged, stored or put in a URL.
import {
  PLANT_FIELDS,
  readPlant,
  groupIssues,
  describeError,
  summarize,
  attemptsText,
} from './present.js';
import { openQueue } from './queue.js';
import { loadPackage } from './load.js';

const DEMO_TOKEN = 'demo-token';
const HISTORY_LIMIT = 8;

const $ = (id) => document.getElementById(id);
const form = $('plant-form');
const inputs = { id: $('plant-id'), name: $('plant-name'), tag: $('plant-tag') };
const baseUrlInput = $('base-url');
const tokenInput = $('token');
const submitButton = $('submit');
const formStatus = $('form-status');
const resultBody = $('result-body');
const historyList = $('history');

/** Builds an element: `h('p', { class: 'x' }, 'text', child)`. Text is always set as text. */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) el.append(child);
  }
  return el;
}

baseUrlInput.value = location.origin;
tokenInput.value = DEMO_TOKEN;

$('token-toggle').addEventListener('click', (event) => {
  const show = tokenInput.type === 'password';
  tokenInput.type = show ? 'text' : 'password';
  event.currentTarget.textContent = show ? 'Hide' : 'Show';
  event.currentTarget.setAttribute('aria-pressed', String(show));
});

let client;
const queueEmpty = $('queue-empty');
const placeholder = queueEmpty.textContent;
try {
  // The wasm module compiles in the background; the form validates as soon as it is in.
  client = await loadPackage((text) => {
    formStatus.textContent = queueEmpty.textContent = text;
  });
  queueEmpty.textContent = placeholder;
} catch (err) {
  formStatus.textContent =
    queueEmpty.textContent = `The client could not be loaded: ${err?.message ?? err}`;
  formStatus.classList.add('bad');
  console.error('plant-store-client did not load:', err);
  throw err;
}
const { createPlant, validateNewPlant } = client;
submitButton.disabled = false;
formStatus.textContent = '';

// A field shows its problems once the user has typed in it or left it, and all of them after a submit.
const touched = new Set();

const currentPlant = () =>
  readPlant({ id: inputs.id.value, name: inputs.name.value, tag: inputs.tag.value });

function showIssues(issues, fields = touched) {
  const byField = groupIssues(issues);
  for (const field of PLANT_FIELDS) {
    const messages = fields.has(field) ? (byField[field] ?? []) : [];
    const input = inputs[field];
    $(`${input.id}-error`).textContent = messages.join(' ');
    if (messages.length) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  return byField;
}

function revalidate() {
  const check = validateNewPlant(currentPlant());
  showIssues(check.ok ? [] : check.issues);
  return check;
}

for (const [field, input] of Object.entries(inputs)) {
  input.addEventListener('input', () => {
    touched.add(field);
    revalidate();
  });
  input.addEventListener('blur', () => {
    if (input.value !== '' && !touched.has(field)) {
      touched.add(field);
      revalidate();
    }
  });
}

let busy = false;
let historyTotal = 0;
function setBusy(on) {
  busy = on;
  form.setAttribute('aria-busy', String(on));
  submitButton.classList.toggle('busy', on);
  submitButton.setAttribute('aria-disabled', String(on));
  submitButton.querySelector('.label').textContent = on ? 'Creating…' : 'Create plant';
}

/** The key of the queued plant the Result card tells about: its outcome replaces the card. */
let followed = null;

function showResult(card) {
  resultBody.replaceChildren(card);
  followed = null;
}

function detailsList(rows) {
  return h(
    'dl',
    { class: 'details' },
    rows.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
  );
}

function successCard(plant, sentId) {
  return h(
    'div',
    { class: 'outcome ok' },
    h(
      'p',
      { class: 'outcome-title' },
      h('span', { class: 'badge ok', 'aria-hidden': 'true' }, '✓'),
      `Created “${plant.name}”`,
    ),
    h('p', {}, 'The Plant Store answered 200 with this Plant:'),
    detailsList([
      ['Name', plant.name],
      ['Tag', plant.tag ?? '— none —'],
      ['Id sent', String(sentId)],
    ]),
  );
}

/** A failure as a card; `words` replaces what describeError says (its title, text or advice). */
function errorCard(err, baseUrl, words = {}) {
  const card = { ...describeError(err, { baseUrl }), ...words };
  const tone = err?.kind === 'validation' || err?.kind === 'config' ? 'warn' : 'bad';
  return h(
    'div',
    { class: `outcome ${tone}` },
    h(
      'p',
      { class: 'outcome-title' },
      h('span', { class: `badge ${tone}`, 'aria-hidden': 'true' }, '!'),
      card.title,
    ),
    h('p', {}, card.text),
    card.message && h('blockquote', { class: 'message' }, card.message),
    err?.kind === 'validation' && err.issues?.length
      ? h(
          'ul',
          { class: 'issues' },
          err.issues.map((i) => h('li', {}, i.message)),
        )
      : null,
    card.details.length ? detailsList(card.details) : null,
    card.advice && h('p', { class: 'advice' }, card.advice),
  );
}

function addHistory(entry) {
  const { tone, text } = summarize(entry);
  const meta = [];
  if (entry.id !== undefined) meta.push(`id ${String(entry.id)}`);
  if (entry.attempts?.length) meta.push(attemptsText(entry.attempts));
  else if (entry.plant) meta.push('200');
  else if (entry.error?.status !== undefined) meta.push(String(entry.error.status));
  if (entry.error?.code !== undefined) meta.push(`code ${entry.error.code}`);
  // The kind, unless the attempts already end with it ("network → network").
  if (entry.error?.kind && entry.attempts?.at(-1) !== entry.error.kind) meta.push(entry.error.kind);
  const time = entry.at.toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  historyList.prepend(
    h(
      'li',
      { class: `entry ${tone}` },
      h('span', { class: 'dot', 'aria-hidden': 'true' }),
      h('span', { class: 'entry-text' }, text),
      h(
        'span',
        { class: 'entry-meta' },
        h('time', { datetime: entry.at.toISOString() }, time),
        meta.length ? ` · ${meta.join(' · ')}` : '',
      ),
    ),
  );
  while (historyList.children.length > HISTORY_LIMIT) historyList.lastElementChild.remove();
  $('history-empty').hidden = true;
  $('history-count').textContent = String(++historyTotal);
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (busy) return;
  for (const field of PLANT_FIELDS) touched.add(field);
  const plant = currentPlant();
  const check = revalidate();
  const at = new Date();
  if (!check.ok) {
    const error = { kind: 'validation', issues: check.issues };
    showResult(errorCard(error));
    addHistory({ at, id: plant.id, error });
    PLANT_FIELDS.map((f) => inputs[f])
      .find((input) => input.getAttribute('aria-invalid') === 'true')
      ?.focus();
    return;
  }
  const baseUrl = baseUrlInput.value.trim();
  setBusy(true);
  showResult(
    h(
      'p',
      { class: 'pending' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      'Sending to the Plant Store…',
    ),
  );
  // Up to 3 attempts (a 429, a 503 or no answer is retried); afterAttempt records each one's status.
  const attempts = [];
  const afterAttempt = ({ status, error }) => {
    attempts.push(status ?? error?.kind);
  };
  try {
    const created = await createPlant(plant, {
      baseUrl,
      token: tokenInput.value,
      retry: { attempts: 3 },
      afterAttempt,
    });
    showResult(successCard(created, plant.id));
    addHistory({ at, id: plant.id, plant: created, attempts });
  } catch (err) {
    if (err?.kind === 'validation') showIssues(err.issues, new Set(PLANT_FIELDS));
    showResult(errorCard(err, baseUrl));
    addHistory({ at, id: plant.id, error: err, attempts });
  } finally {
    setBusy(false);
  }
});

// The queue: a PlantOutbox of the same package, opened once the form works.
const queueButton = $('queue-add');
// What a queue action did replaces the Result card, which would otherwise still show the last call.
const told = (text) => showResult(h('p', { class: 'queued' }, text));

/** The Result card for a queued plant once the store has answered for it. */
function queuedOutcome(entry) {
  const name = `“${entry.plant.name}”`;
  if (entry.state === 'created') told(`${name}, from the queue, was created.`);
  else if (entry.state === 'rejected')
    showResult(
      errorCard(entry.error, baseUrlInput.value.trim(), {
        title: `The Plant Store refused ${name} from the queue`,
        advice: 'It stays in the queue until you remove it: change the plant and add it again.',
      }),
    );
  else if (entry.state === 'uncertain')
    showResult(
      errorCard(entry.error, baseUrlInput.value.trim(), {
        title: `${name} may already be in the store`,
        text: 'A request may have created it before the store refused it when sent again:',
        advice:
          'Look for it in the store: then “It is there” in the queue, else “Send again” or “Remove”.',
      }),
    );
}

openQueue({
  PlantOutbox: client.PlantOutbox,
  h,
  baseUrl: () => baseUrlInput.value.trim(),
  token: () => tokenInput.value,
  told,
  failed: (err) => showResult(errorCard(err, baseUrlInput.value.trim())),
  changed: (entry) => {
    if (entry.key === followed) queuedOutcome(entry);
  },
}).then(
  (queue) => {
    queueButton.disabled = false;
    baseUrlInput.addEventListener('change', () => queue.reopen());
    tokenInput.addEventListener('change', () => queue.reopen()); // the service worker's token too
    queueButton.addEventListener('click', async () => {
      for (const field of PLANT_FIELDS) touched.add(field);
      const plant = currentPlant();
      try {
        // Validates first: an invalid plant is a validation error, and nothing is kept.
        const entry = await queue.add(plant);
        if (entry.state === 'pending' || entry.state === 'sending') {
          told(
            `“${entry.plant.name}” is in the queue: it is sent once the store can be reached, and shows there how it goes.`,
          );
          followed = entry.key;
        } else queuedOutcome(entry); // queued before, and answered for
      } catch (err) {
        if (err?.kind === 'validation') showIssues(err.issues, new Set(PLANT_FIELDS));
        // A config error of an open queue is about the plant (another one holds its id); of a
        // stopped one, about the connection's settings, as describeError words it.
        const words =
          err?.kind === 'config' && queue.isOpen()
            ? {
                title: 'The queue cannot take this plant',
                text: 'Nothing was added. The queue says:',
                advice: 'Pick another id, or remove the queued plant that has this one.',
              }
            : {};
        showResult(errorCard(err, baseUrlInput.value.trim(), words));
      }
    });
  },
  (err) => {
    queueEmpty.textContent = `The queue could not be opened: ${err?.message ?? err}`;
  },
);
