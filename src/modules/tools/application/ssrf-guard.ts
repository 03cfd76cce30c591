import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { AddressPolicy, endpointProblem, hostOf } from '../domain/ssrf-policy';
import { HostResolver } from '../ports/host-resolver';
import type { PinnedTarget } from '../ports/service-caller';

/** Host names in messages are cut here: a registered name may be long, a message should not be. */
const SHOWN_HOST_LENGTH = 100;

/**
 * The SSRF check of a service endpoint, run when it is registered and again before every proxied
 * call (names can be re-pointed in between). Every A and AAAA address must be public; the call
 * then connects to the first one, already checked, never resolving the name a second time (the
 * ServiceCaller port, src/modules/tools/ports/service-caller.ts). Fails closed: a name that does
 * not resolve, or a resolver that fails, is refused.
 */
@Injectable()
export class SsrfGuard {
  private readonly policy: AddressPolicy;

  constructor(
    private readonly resolver: HostResolver,
    config: GatewayConfig,
  ) {
    this.policy = new AddressPolicy(config.tools.ssrfAllowCidrs);
  }

  /** The endpoint and the address to call it at; throws `services.endpoint_refused` otherwise. */
  async check(endpoint: string): Promise<PinnedTarget> {
    const problem = endpointProblem(endpoint);
    if (problem !== null) throw refused(problem);
    const url = new URL(endpoint);
    const host = hostOf(url);
    const shownHost = host.length > SHOWN_HOST_LENGTH ? `${host.slice(0, SHOWN_HOST_LENGTH)}...` : host;
    const addresses = isIP(host) !== 0 ? [host] : await this.resolve(host, shownHost);
    if (addresses.length === 0) throw refused(`endpoint host ${shownHost} does not resolve`);
    for (const address of addresses) {
      const refusal = this.policy.refusal(address);
      if (refusal !== null) throw refused(`endpoint host ${shownHost} is refused: ${refusal}`);
    }
    return { url, address: addresses[0] };
  }

  private async resolve(host: string, shownHost: string): Promise<string[]> {
    try {
      return await this.resolver.resolve(host);
    } catch (error) {
      // The resolver's own message (servers, system errors) stays in the cause, for the logs only.
      throw new GatewayError('services.endpoint_refused', `endpoint host ${shownHost} could not be resolved`, {}, { cause: error });
    }
  }
}

function refused(message: string): GatewayError {
  return new GatewayError('services.endpoint_refused', message);
}
