import { BadRequestException, ForbiddenException, HttpException, InternalServerErrorException, NotFoundException, PayloadTooLargeException, ServiceUnavailableException } from '@nestjs/common';
import { fieldError, GatewayError } from '../errors/gateway-error';
import { asGatewayError, ERROR_STATUS, errorBody } from './error-response';

describe('asGatewayError', () => {
  it('keeps a GatewayError as it is', () => {
    const error = new GatewayError('chat.model_not_found', 'model not found: x');
    expect(asGatewayError(error, 'POST', '/v1/chat/completions')).toBe(error);
  });

  it('maps framework exceptions by status, keeping client-facing messages', () => {
    expect(asGatewayError(new BadRequestException('bad field'), 'POST', '/x')).toEqual(new GatewayError('http.bad_request', 'bad field'));
    expect(asGatewayError(new BadRequestException(['a must be a string', 'b is required']), 'POST', '/x')?.message).toBe('a must be a string; b is required');
    expect(asGatewayError(new ForbiddenException('nope'), 'GET', '/x')?.type).toBe('forbidden');
    expect(asGatewayError(new PayloadTooLargeException(), 'POST', '/x')?.type).toBe('payload_too_large');
    expect(asGatewayError(new ServiceUnavailableException('later'), 'GET', '/x')?.type).toBe('service_unavailable');
    expect(asGatewayError(new HttpException('teapot', 418), 'GET', '/x')?.type).toBe('bad_request');
    expect(asGatewayError(new PayloadTooLargeException(), 'POST', '/x')?.code).toBe('request.body_too_large');
    expect(asGatewayError(new HttpException('teapot', 418), 'GET', '/x')?.code).toBe('http.bad_request');
  });

  it('turns any 404 into the route-not-found answer, with a bounded path', () => {
    expect(asGatewayError(new NotFoundException('Cannot GET /x'), 'GET', '/x')).toEqual(new GatewayError('route.not_found', 'route not found: GET /x'));
    expect(asGatewayError(new NotFoundException(), 'GET', '/x')).toMatchObject({ type: 'not_found', code: 'route.not_found' });
    expect(asGatewayError(new NotFoundException(), 'GET', `/${'a'.repeat(500)}`)?.message).toHaveLength('route not found: GET '.length + 200);
  });

  it('leaves server errors and unknown values to be reported as internal', () => {
    expect(asGatewayError(new InternalServerErrorException('db password leaked'), 'GET', '/x')).toBeNull();
    expect(asGatewayError(new Error('boom'), 'GET', '/x')).toBeNull();
    expect(asGatewayError('a string', 'GET', '/x')).toBeNull();
  });

  it('writes the envelope with the code and the param beside the type and the message', () => {
    expect(errorBody(new GatewayError('payment.replayed', 'used'))).toEqual({ error: { type: 'invalid_payment', message: 'used', code: 'payment.replayed', param: null } });
    expect(errorBody(fieldError('request.invalid_query', 'days', 'days must be a whole number'))).toEqual({
      error: { type: 'bad_request', message: 'days must be a whole number', code: 'request.invalid_query', param: 'days' },
    });
  });

  it("writes the tools' static 502 bodies as the spec fixes them, without param", () => {
    expect(errorBody(new GatewayError('tools.search_provider_error', 'tavily said 500'))).toEqual({ error: 'search provider error' });
  });

  it('has a status for every error type, and the spec statuses for its types', () => {
    expect(ERROR_STATUS).toMatchObject({
      bad_request: 400,
      invalid_payment: 402,
      model_not_found: 404,
      rate_limit_exceeded: 429,
      settlement_failed: 500,
      provider_error: 502,
      upstream_unavailable: 503,
    });
  });
});
