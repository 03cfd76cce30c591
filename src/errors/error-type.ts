/**
 * The spec's error.type values (section 7), plus the edge's own framework errors.
 * Domain and application code throw GatewayError; the HTTP edge maps the type to a status. Its own
 * file, so the catalogue of codes and the error class both read it without reading each other.
 * Pure TypeScript: importable from any domain.
 */
export type ErrorType =
  | 'bad_request'
  | 'unauthorized'
  | 'invalid_payment'
  | 'forbidden'
  | 'conflict'
  | 'not_found'
  | 'model_not_found'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_header_fields_too_large'
  | 'rate_limit_exceeded'
  | 'internal_error'
  | 'settlement_failed'
  | 'provider_error'
  | 'upstream_unavailable'
  | 'service_unavailable';
