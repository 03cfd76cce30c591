import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';

/** A stream event's data as JSON; anything unparsable is the provider's malformed answer. */
export function parseEventJson(provider: ProviderName, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamError(provider, 'bad_response', `${provider} sent a stream event that is not JSON`);
  }
}
