const IMAGE_TYPES: Partial<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

/** Gemini wants a mimeType beside an image URL: the path's extension says it, else JPEG, the commonest on the web. */
export function imageMimeType(url: string): string {
  const path = url.split(/[?#]/, 1)[0];
  const extension = /\.(\w{1,16})$/.exec(path)?.[1].toLowerCase();
  return (extension !== undefined && IMAGE_TYPES[extension]) || 'image/jpeg';
}
