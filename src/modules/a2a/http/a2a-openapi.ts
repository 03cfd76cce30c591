import { BOOLEAN, object, STRING, type JsonSchema } from '../../../http/openapi/wire-schemas';

/** POST /a2a (spec 2.13, 4.8, 7) and the agent card, for the OpenAPI document. */
const RPC_ID: JsonSchema = { type: ['string', 'number', 'null'] };

export const A2A_REQUEST: JsonSchema = {
  ...object({ jsonrpc: { const: '2.0' }, id: RPC_ID, method: { enum: ['message/send', 'tasks/get', 'tasks/cancel'] }, params: { type: 'object' } }, ['params']),
  description:
    'one JSON-RPC 2.0 request (no batches); payment travels in the message metadata (x402.payment.payload): an exact or escrow payment of the stored quote, or a channel voucher of exactly the quote whose request_digest is the SHA-256 of `solvela-a2a-channel-digest-v1:` followed by the task id',
};

const RPC_ERROR = object(
  {
    code: { type: 'integer', description: 'spec 7: -32600 to -32603, -32001 to -32003, -32007 to -32009' },
    message: STRING,
    data: {
      type: 'object',
      description:
        "on a payment refusal: reason (the REST error code) and retryable; a channel voucher's refusal also last_cumulative (a decimal string), so the next voucher is last_cumulative plus the quote; a busy channel is -32603",
    },
  },
  ['data'],
);

export const A2A_RESPONSE: JsonSchema = {
  oneOf: [object({ jsonrpc: { const: '2.0' }, id: RPC_ID, result: { type: 'object', description: 'the A2A task' } }), object({ jsonrpc: { const: '2.0' }, id: RPC_ID, error: RPC_ERROR })],
};

const EXTENSION = object({ uri: STRING, description: STRING, required: BOOLEAN, params: { type: 'object' } }, ['description', 'params']);

export const AGENT_CARD: JsonSchema = object({
  name: STRING,
  description: STRING,
  url: { type: 'string', description: 'the /a2a endpoint' },
  version: STRING,
  protocolVersion: { const: '0.3.0' },
  preferredTransport: { const: 'JSONRPC' },
  provider: object({ organization: STRING, url: STRING }),
  capabilities: object({ streaming: { const: false }, pushNotifications: { const: false }, stateTransitionHistory: BOOLEAN, extensions: { type: 'array', items: EXTENSION } }, [
    'stateTransitionHistory',
  ]),
  defaultInputModes: { type: 'array', items: STRING },
  defaultOutputModes: { type: 'array', items: STRING },
  skills: {
    type: 'array',
    items: object({
      id: STRING,
      name: STRING,
      description: STRING,
      tags: { type: 'array', items: STRING },
      inputModes: { type: 'array', items: STRING },
      outputModes: { type: 'array', items: STRING },
    }),
  },
});
