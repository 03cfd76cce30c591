import type { WebSocket } from 'ws';
import { answerJsonRpc, integerParam, RpcError, stringParam } from './json-rpc';
import type { LocalChain, SentTransaction } from './local-chain';

type Subscription = { kind: 'signature'; signature: string } | { kind: 'slot' };

/**
 * Serves the pub-sub methods web3.js and kit use on one websocket: signatureSubscribe (one
 * notification once the signature has landed, then the subscription ends, as on a validator) and
 * slotSubscribe. `nextId` numbers subscriptions across the server, as a validator does. Returns
 * the clean-up to run when the socket closes.
 */
export function serveSubscriptions(socket: WebSocket, chain: LocalChain, nextId: () => number): () => void {
  const subscriptions = new Map<number, Subscription>();
  const notify = (method: string, subscription: number, result: unknown): void => {
    socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription } }));
  };
  const notifySignature = (id: number, sent: SentTransaction): void => {
    subscriptions.delete(id);
    notify('signatureNotification', id, { context: { slot: sent.slot }, value: { err: sent.err } });
  };
  const unsubscribe = (params: unknown[], kind: Subscription['kind']): true => {
    const id = integerParam(params, 0, 'subscription id');
    if (subscriptions.get(id)?.kind !== kind) throw RpcError.invalidParams('Invalid subscription id.');
    subscriptions.delete(id);
    return true;
  };

  // Work that must follow the reply, such as the notification for an already landed signature.
  const afterReply: Array<() => void> = [];
  const handle = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'signatureSubscribe': {
        const signature = stringParam(params, 0, 'signature');
        const id = nextId();
        subscriptions.set(id, { kind: 'signature', signature });
        const status = chain.signatureStatus(signature);
        if (status) afterReply.push(() => notifySignature(id, { signature, ...status }));
        return id;
      }
      case 'slotSubscribe': {
        const id = nextId();
        subscriptions.set(id, { kind: 'slot' });
        return id;
      }
      case 'signatureUnsubscribe':
        return unsubscribe(params, 'signature');
      case 'slotUnsubscribe':
        return unsubscribe(params, 'slot');
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  };

  socket.on('message', (data) => {
    const reply = answerJsonRpc(data.toString(), handle);
    if (reply !== null) socket.send(JSON.stringify(reply));
    afterReply.splice(0).forEach((work) => work());
  });

  const stopLanded = chain.onLanded((sent) => {
    for (const [id, subscription] of subscriptions) {
      if (subscription.kind === 'signature' && subscription.signature === sent.signature) notifySignature(id, sent);
    }
  });
  const stopSlots = chain.onSlot((slot) => {
    for (const [id, subscription] of subscriptions) {
      if (subscription.kind === 'slot') notify('slotNotification', id, { parent: Math.max(slot - 1, 0), root: slot, slot });
    }
  });
  return () => {
    stopLanded();
    stopSlots();
  };
}
