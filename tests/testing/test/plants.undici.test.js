// The app's tests with undici's MockAgent as the global dispatcher, which Node's fetch uses.
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issues, save } from '../src/plants.js';

const agent = new MockAgent();
const previous = getGlobalDispatcher();
beforeAll(() => {
  agent.disableNetConnect();
  setGlobalDispatcher(agent);
});
afterAll(async () => {
  setGlobalDispatcher(previous);
  await agent.close();
});

it('checks the form as the user types', () => {
  expect(Object.keys(issues({ id: 2.5, name: 'Fern' }))).toEqual(['id']);
});

it('saves a plant', async () => {
  agent
    .get('https://plants.example')
    .intercept({ path: '/api/v1/plants', method: 'POST' })
    .reply(200, ({ body }) => ({ name: JSON.parse(body).name }), {
      headers: { 'content-type': 'application/json' },
    });
  expect(await save({ id: 2, name: 'Fern' }, 'test-token')).toBe('Created Fern');
  agent.assertNoPendingInterceptors();
});
