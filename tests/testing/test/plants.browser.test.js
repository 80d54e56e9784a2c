// The app's tests in a real browser (Vitest's browser mode), with MSW as a service worker; the queue
// on the page's own IndexedDB, Web Locks and fetch.
import { http } from 'msw';
import { setupWorker } from 'msw/browser';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { API } from '../src/api.js';
import { issues, save } from '../src/plants.js';
import { listed, openQueue } from '../src/queue.js';
import { handlers } from './handlers.js';

const worker = setupWorker(...handlers);
beforeAll(() => worker.start({ quiet: true, onUnhandledRequest: 'bypass' }));
afterEach(() => worker.resetHandlers());
afterAll(() => worker.stop());

it('checks the form as the user types', () => {
  expect(issues({ id: 2, name: 'Fern' })).toEqual({});
  expect(Object.keys(issues({ id: 2.5, name: 'Fern' }))).toEqual(['id']);
});

it('saves a plant', async () => {
  expect(await save({ id: 2, name: 'Fern', tag: 'green' }, 'test-token')).toBe('Created Fern');
});

it("shows the store's refusal", async () => {
  expect(await save({ id: 1, name: 'Fern' }, 'test-token')).toBe(
    'Refused: a plant with id 1 already exists',
  );
});

it('keeps a plant in the queue and delivers it', async () => {
  const queue = await openQueue(async () => 'test-token');
  await queue.add({ id: 2, name: 'Fern' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Fern: created']);
  await queue.close();
});

it('keeps a plant while the store is down, and sends it again with its key', async () => {
  // The page's IndexedDB keeps the queue from one test to the next.
  await new Promise((done) => {
    indexedDB.deleteDatabase('plant-store-outbox:plants').onsuccess = done;
  });
  worker.use(http.post(`${API}/plants`, () => Response.error(), { once: true }));
  const queue = await openQueue(async () => 'test-token');
  await queue.add({ id: 3, name: 'Ivy' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Ivy: pending']);
  await queue.flush(); // what the outbox does by itself after its backoff, or back online
  expect(listed(queue)).toEqual(['Ivy: created']);
  await queue.close();
});
