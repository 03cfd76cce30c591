/** The x402 schemes the gateway speaks; `channel` is decoded and refused until channels exist. */
export type SchemeName = 'exact' | 'escrow' | 'channel';

/**
 * When a payment moves its money, relative to the work it pays for (spec 4.7; docs/decisions.md,
 * "Payment schemes"): an `exact` transfer before the handler serves (the paid tools, the proxy,
 * A2A) or at the answer's first content (chat); an `escrow` deposit before serving, claimed once
 * the answer is delivered; a `channel` draw after delivery.
 */
export type SettlementMoment = 'before_handler' | 'at_first_content' | 'deposit_before_serving' | 'after_delivery';
