// The app's tests in Jest, in jsdom (jest-fixed-jsdom: jsdom with Node's fetch), with MSW in Node.
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { setupServer } from 'msw/node';
import { issues, save } from '../src/plants.js';
import { handlers } from './handlers.js';

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

it('runs in jsdom', () => {
  expect(typeof document).toBe('object');
});

it('checks the form as the user types', () => {
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
