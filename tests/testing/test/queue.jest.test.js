// The app's queue in Jest, in jsdom, with MSW in Node and fake-indexeddb; Jest exits after it.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { IDBFactory } from 'fake-indexeddb';
import { setupServer } from 'msw/node';
import { listed, openQueue } from '../src/queue.js';
import { handlers } from './handlers.js';

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

it('keeps a plant and delivers it', async () => {
  const queue = await openQueue(async () => 'test-token', { indexedDB: new IDBFactory() });
  await queue.add({ id: 2, name: 'Fern' });
  await queue.flush();
  expect(listed(queue)).toEqual(['Fern: created']);
  await queue.close();
});
