// A server component rendering the client component that calls the store from the browser.
import Plant from './plant';

export default function Page() {
  return (
    <main>
      <Plant />
    </main>
  );
}
