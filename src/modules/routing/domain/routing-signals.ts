/** What the router reads from a request: no provider or HTTP detail, just what decides the tier and the fit. */
export interface RoutingSignals {
  /** The user messages' text, in order, joined by newlines (what the scorer's keyword lists read). */
  userText: string;
  messageCount: number;
  /** Function tools in the request, or tool calls in its history. */
  usesTools: boolean;
  imageParts: number;
  /** The input-token estimate of the cost rule (model-independent). */
  inputTokens: number;
  /** max_tokens as the client sent it. */
  maxTokens: number | undefined;
}
