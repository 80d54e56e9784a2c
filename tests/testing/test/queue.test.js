// The app's queue in Vitest (node, jsdom, happy-dom), with MSW in Node and fake-indexeddb.
import { IDBFactory } from 'fake-indexeddb';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { API } from '../src/api.js';
import { listed, openQueue } from '../src/queue.js';
import { handlers } from './handlers.js';

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const keys = [];
server.events.on('request:start', ({ request }) => {
  if (request.method === 'POST') keys.push(request.headers.get('idempotency-key'));
});
afterEach(() => {
  keys.length = 0;
});

it('keeps a plant and delivers it once, with its key', async () => {
  const queue = await openQueue(async () => 'test-token', { indexedDB: new IDBFactory() });
  await queue.add({ id: 2, name: 'Fern' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Fern: created']);
  expect(keys).toEqual([`"${queue.entries()[0].key}"`]); // the key as a quoted string
  await queue.close();
});

it('keeps what the store refused, with its reason', async () => {
  const queue = await openQueue(async () => 'test-token', { indexedDB: new IDBFactory() });
  await queue.add({ id: 1, name: 'Fern' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Fern: rejected']);
  expect(queue.entries()[0].error.message).toBe('a plant with id 1 already exists');
  await queue.close();
});

it('keeps a plant while the store is down, and sends it again with its key', async () => {
  server.use(http.post(`${API}/plants`, () => Response.error(), { once: true }));
  const queue = await openQueue(async () => 'test-token', { indexedDB: new IDBFactory() });
  await queue.add({ id: 3, name: 'Ivy' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Ivy: pending']);
  await queue.flush(); // what the outbox does by itself after its backoff, or back online
  expect(listed(queue)).toEqual(['Ivy: created']);
  const { key } = queue.entries()[0];
  expect(keys).toEqual([`"${key}"`, `"${key}"`]);
  await queue.close();
});
