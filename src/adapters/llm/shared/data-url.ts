/** An inline image as `data:<media type>[;param=value...];base64,<data>`. */
export interface DataUrl {
  mediaType: string;
  data: string;
}

// Only the prefix is matched: the base64 payload can be megabytes long. Every repetition is bounded
// (RFC 6838 names are at most 127 characters; docs/decisions.md, "Bounded runs in text scans").
const BASE64_DATA_URL_PREFIX = /^data:([\w.+-]{1,127}\/[\w.+-]{1,127})(?:;[^;,]{0,1024}){0,16}?;base64,/i;

/** The media type and base64 payload of a data URL; undefined for anything else (http URLs, non-base64 data URLs). */
export function parseDataUrl(url: string): DataUrl | undefined {
  const prefix = BASE64_DATA_URL_PREFIX.exec(url);
  return prefix ? { mediaType: prefix[1].toLowerCase(), data: url.slice(prefix[0].length) } : undefined;
}
