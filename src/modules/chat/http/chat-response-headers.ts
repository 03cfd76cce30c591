import type { Response } from 'express';
import type { ChatPlan } from '../domain/chat-plan';
import type { ServedAnswer } from '../application/completion-outcome';

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A valid X-Session-Id (spec 8: at most 128 of [a-zA-Z0-9-_]), or undefined; invalid ones are ignored. */
export function sessionId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && SESSION_ID.test(header) ? header : undefined;
}

/**
 * The diagnostics of spec 4.1, only when the client sent `X-Gw-Debug: true`. Profile, tier and
 * score exist only when a profile was routed; provider and cache only once something answered;
 * the parameter lists only when a provider was called and left something out or changed it.
 */
export function setDebugHeaders(res: Response, plan: ChatPlan, startedAt: number, served?: ServedAnswer, paymentStatus?: string): void {
  const model = served?.model ?? plan.candidates[0].model;
  const primary = plan.candidates[0];
  res.setHeader('X-Gw-Model', model.id);
  if (plan.routing) {
    res.setHeader('X-Gw-Profile', plan.routing.profile);
    res.setHeader('X-Gw-Tier', plan.routing.tier);
    res.setHeader('X-Gw-Score', plan.routing.score.toFixed(4));
  }
  res.setHeader('X-Gw-Provider', model.provider);
  if (served) res.setHeader('X-Gw-Cache', served.cache);
  // What the answering provider did not take as written (docs/decisions.md, "Provider capabilities").
  const adjustments = served?.adjustments?.();
  if (adjustments?.dropped.length) res.setHeader('X-Gw-Params-Dropped', adjustments.dropped.join(', '));
  if (adjustments?.rewritten.length) res.setHeader('X-Gw-Params-Rewritten', adjustments.rewritten.join(', '));
  if (paymentStatus) res.setHeader('X-Gw-Payment-Status', paymentStatus);
  res.setHeader('X-Gw-Token-Estimate-In', String(plan.inputTokens));
  res.setHeader('X-Gw-Token-Estimate-Out', String(primary.outputTokens));
  res.setHeader('X-Gw-Latency-Ms', (performance.now() - startedAt).toFixed(1));
}
