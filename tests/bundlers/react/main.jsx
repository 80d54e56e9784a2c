// The React app of the bundler suite: the recipe of docs/react.md (recipe.jsx, which the suite
// writes from its block) rendered inside TanStack Query's provider and a Suspense boundary, as the
// page says, with the options of the page's query (`base`, `token`) and an outbox opened on them.
import { Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { PlantOutbox } from 'plant-store-client/outbox';
import { NewPlant } from './recipe.jsx';

const params = new URLSearchParams(location.search);
const options = { baseUrl: params.get('base'), token: params.get('token') };
PlantOutbox.open({ ...options, name: 'plants' }).then(
  (outbox) => {
    createRoot(document.getElementById('root')).render(
      <QueryClientProvider client={new QueryClient()}>
        <Suspense fallback={<p>Loading…</p>}>
          <NewPlant options={options} outbox={outbox} />
        </Suspense>
      </QueryClientProvider>,
    );
  },
  (err) => {
    document.body.textContent = `the outbox did not open: ${err.message}`;
  },
);
