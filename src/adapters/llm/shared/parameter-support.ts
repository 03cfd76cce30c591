import { OPTIONAL_PARAMETERS, type ChatRequest, type OptionalParameter } from '../../../modules/providers/domain/chat-request';
import type { RequestAdjustments } from '../../../modules/providers/ports/llm-provider';

/**
 * How one upstream model takes a request's optional settings: as written (perhaps under its own
 * field name), rewritten (value or shape changed), and any other one that is set is dropped. Each
 * adapter declares its own and builds its body from that declaration, so the debug header lists
 * what was really sent (docs/decisions.md, "Provider capabilities").
 */
export interface ParameterSupport {
  forwarded: ReadonlySet<OptionalParameter>;
  rewritten: ReadonlySet<OptionalParameter>;
}

export function parameterSupport(forwarded: readonly OptionalParameter[], rewritten: readonly OptionalParameter[] = []): ParameterSupport {
  return { forwarded: new Set(forwarded), rewritten: new Set(rewritten) };
}

/** Whether the setting goes upstream in some form. */
export function isSent(support: ParameterSupport, parameter: OptionalParameter): boolean {
  return support.forwarded.has(parameter) || support.rewritten.has(parameter);
}

/** The optional settings as an OpenAI-compatible body carries them: the client's values, perhaps changed. */
export type SentSettings = Partial<Record<OptionalParameter, unknown>>;

/** What a body carrying `sent` left out of the request's settings or changed; `also` adds other changes (message content, tool_choice). */
export function sentAdjustments(request: ChatRequest, sent: SentSettings, also: Partial<RequestAdjustments> = {}): RequestAdjustments {
  const set = OPTIONAL_PARAMETERS.filter((parameter) => request[parameter] !== undefined);
  return {
    dropped: [...set.filter((parameter) => !(parameter in sent)), ...(also.dropped ?? [])],
    rewritten: [...set.filter((parameter) => parameter in sent && JSON.stringify(sent[parameter]) !== JSON.stringify(request[parameter])), ...(also.rewritten ?? [])],
  };
}

/** The request's set optional settings that the support drops or rewrites; `alsoRewritten` names other rewrites (message content). */
export function requestAdjustments(request: ChatRequest, support: ParameterSupport, alsoRewritten: readonly string[] = []): RequestAdjustments {
  const set = OPTIONAL_PARAMETERS.filter((parameter) => request[parameter] !== undefined);
  return {
    dropped: set.filter((parameter) => !isSent(support, parameter)),
    rewritten: [...set.filter((parameter) => support.rewritten.has(parameter)), ...alsoRewritten],
  };
}
