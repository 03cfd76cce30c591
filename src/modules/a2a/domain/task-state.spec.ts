import { A2A_ERRORS, A2AError } from './a2a-errors';
import { TASK_STATES, TASK_TRIGGERS, isTerminal, transition, type TaskState, type TaskTrigger } from './task-state';

const { paymentFailed, taskNotCancelable, internal } = A2A_ERRORS;

/** Every (state, trigger) pair of spec 3.1: where it goes, or the code that refuses it (spec 7). */
const EXPECTED: Record<TaskState, Record<TaskTrigger, { to: TaskState } | { code: number }>> = {
  'input-required': {
    'payment-submitted': { to: 'working' },
    'settlement-failed-before-funds': { code: internal },
    'provider-delivered': { code: internal },
    'provider-failed-after-payment': { code: internal },
    'channel-not-drawn': { code: internal },
    cancel: { to: 'canceled' },
  },
  working: {
    'payment-submitted': { code: paymentFailed },
    'settlement-failed-before-funds': { to: 'input-required' },
    'provider-delivered': { to: 'completed' },
    'provider-failed-after-payment': { to: 'failed' },
    'channel-not-drawn': { to: 'input-required' },
    cancel: { code: taskNotCancelable },
  },
  completed: {
    'payment-submitted': { code: paymentFailed },
    'settlement-failed-before-funds': { code: internal },
    'provider-delivered': { code: internal },
    'provider-failed-after-payment': { code: internal },
    'channel-not-drawn': { code: internal },
    cancel: { code: taskNotCancelable },
  },
  failed: {
    'payment-submitted': { code: paymentFailed },
    'settlement-failed-before-funds': { code: internal },
    'provider-delivered': { code: internal },
    'provider-failed-after-payment': { code: internal },
    'channel-not-drawn': { code: internal },
    cancel: { code: taskNotCancelable },
  },
  canceled: {
    'payment-submitted': { code: paymentFailed },
    'settlement-failed-before-funds': { code: internal },
    'provider-delivered': { code: internal },
    'provider-failed-after-payment': { code: internal },
    'channel-not-drawn': { code: internal },
    cancel: { code: taskNotCancelable },
  },
};

const PAIRS = TASK_STATES.flatMap((state) => TASK_TRIGGERS.map((trigger) => [state, trigger, EXPECTED[state][trigger]] as const));

describe('A2A task states', () => {
  it('covers all 30 pairs of five states and six triggers', () => {
    expect(PAIRS).toHaveLength(30);
  });

  it.each(PAIRS)('%s on %s', (state, trigger, expected) => {
    const result = transition(state, trigger);
    if ('to' in expected) {
      expect(result).toEqual({ to: expected.to });
    } else {
      expect(result).toEqual({ refused: { code: expected.code, message: expect.any(String) } });
      if ('refused' in result) expect(result.refused.message).toContain(state);
    }
  });

  it('names completed, failed and canceled terminal, and only those', () => {
    expect(TASK_STATES.filter(isTerminal)).toEqual(['completed', 'failed', 'canceled']);
  });

  it('leaves no way out of a terminal state', () => {
    for (const state of TASK_STATES.filter(isTerminal)) {
      for (const trigger of TASK_TRIGGERS) expect(transition(state, trigger)).toHaveProperty('refused');
    }
  });

  it('tells a payment on a working task apart from one on a finished task', () => {
    const working = transition('working', 'payment-submitted');
    const canceled = transition('canceled', 'payment-submitted');
    expect(working).toEqual({ refused: { code: paymentFailed, message: 'task is working on an earlier payment; it accepts no further payment' } });
    expect(canceled).toEqual({ refused: { code: paymentFailed, message: 'task is canceled; it accepts no payment' } });
  });

  it('turns a refusal into an A2AError carrying its code', () => {
    const result = transition('working', 'cancel');
    if (!('refused' in result)) throw new Error('expected a refusal');
    const error = A2AError.from(result.refused);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: taskNotCancelable, message: result.refused.message, data: undefined });
  });
});
