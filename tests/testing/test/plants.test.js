// The app's tests with MSW in Node: Vitest runs them in its node, jsdom and happy-dom environments.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { issues, save } from '../src/plants.js';
import { handlers } from './handlers.js';

const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

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
