import { join } from 'node:path';
import { LONG_RUN, unoptimizedFailures, type RunText } from '../../../../test/support/unoptimized-regexp';

const URLS: readonly RunText[] = [
  ['a long media type', 'data:', 'x'],
  ['a long subtype', 'data:image/', 'x'],
  ['a long parameter', 'data:image/png;', 'x'],
  ['a long path extension', 'https://example.com/a.', 'x'],
];

describe('image URLs of several MiB, with patterns compiled unoptimised', () => {
  it('are read without overflowing the regexp backtracking stack', async () => {
    const dataUrl = unoptimizedFailures(join(__dirname, 'data-url.ts'), 'return m.parseDataUrl(text);', URLS, LONG_RUN);
    const mimeType = unoptimizedFailures(join(__dirname, '../google/image-mime-type.ts'), 'return m.imageMimeType(text);', URLS, LONG_RUN);
    expect([...(await dataUrl), ...(await mimeType)]).toEqual([]);
  }, 60_000);
});
