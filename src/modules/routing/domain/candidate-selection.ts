import { billedCompletionTokens } from '../../billing/domain/chat-cost';
import type { ErrorCode } from '../../../errors/error-codes';
import { GatewayError } from '../../../errors/gateway-error';
import { TIERS, type CatalogModel, type ProfileTable, type Tier } from './catalog';
import type { RoutingSignals } from './routing-signals';

type Misfit = 'vision' | 'tools' | 'context';

/** Why a model cannot take this request, or null when it can. */
export function misfit(model: CatalogModel, signals: RoutingSignals): Misfit | null {
  if (signals.imageParts > 0 && !model.capabilities.vision) return 'vision';
  if (signals.usesTools && !model.capabilities.tools) return 'tools';
  if (signals.inputTokens + billedCompletionTokens(signals.maxTokens, model.maxOutput) > model.contextWindow) return 'context';
  return null;
}

/** An explicitly named model answers, or the request is refused with the reason. */
export function requireFit(model: CatalogModel, signals: RoutingSignals): CatalogModel {
  const reason = misfit(model, signals);
  if (reason) throw misfitError(reason, model, null, signals);
  return model;
}

/**
 * The capable candidates for a routed request, in the order to try them: the tier's own list, then
 * the tiers above it (more capable), then those below; a model appears once. The first answers;
 * the rest are fallbacks. Never empty: refused with the first reason the tier's own model gave.
 */
export function capableCandidates(table: ProfileTable, tier: Tier, signals: RoutingSignals, profileName: string): CatalogModel[] {
  const index = TIERS.indexOf(tier);
  const order = [...TIERS.slice(index), ...TIERS.slice(0, index).reverse()];
  const seen = new Set<string>();
  const capable: CatalogModel[] = [];
  for (const t of order) {
    for (const model of table[t]) {
      if (seen.has(model.id)) continue;
      seen.add(model.id);
      if (misfit(model, signals) === null) capable.push(model);
    }
  }
  if (capable.length === 0) throw misfitError(misfit(table[tier][0], signals) as Misfit, table[tier][0], profileName, signals);
  return capable;
}

const NEEDS: Record<Misfit, { what: string; code: ErrorCode }> = {
  vision: { what: 'image input', code: 'chat.vision_unsupported' },
  tools: { what: 'tools', code: 'chat.tools_unsupported' },
  context: { what: 'this request size', code: 'chat.context_exceeded' },
};

/** `model X does not accept image input` or `no model of profile P accepts image input`, with the way out. */
function misfitError(reason: Misfit, model: CatalogModel, profileName: string | null, signals: RoutingSignals): GatewayError {
  const subject = profileName === null ? `model ${model.id} does not accept` : `no model of profile ${profileName} accepts`;
  const hint = reason === 'context' ? ` (about ${signals.inputTokens} input tokens plus the completion); shorten the messages or lower max_tokens` : '; see GET /v1/models for capabilities';
  return new GatewayError(NEEDS[reason].code, `${subject} ${NEEDS[reason].what}${hint}`);
}
