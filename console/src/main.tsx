import { render } from 'preact';
import { App } from './app';

const root = document.getElementById('app')!;
// The page's "Loading" line is for a browser that has not run the script yet; the app replaces it.
root.textContent = '';
render(<App />, root);
