import { A2A_ERRORS, type A2ARefusal } from './a2a-errors';

/** The states of an A2A task (spec 3.1), kebab-case as they appear on the wire. */
export type TaskState = 'input-required' | 'working' | 'completed' | 'failed' | 'canceled';

/**
 * What may happen to a task. `payment-submitted` and `cancel` come from the client (message/send
 * with a payment, tasks/cancel); the others are the outcome of the payment leg the gateway runs.
 */
export type TaskTrigger = 'payment-submitted' | 'settlement-failed-before-funds' | 'provider-delivered' | 'provider-failed-after-payment' | 'channel-not-drawn' | 'cancel';

export const TASK_STATES: readonly TaskState[] = ['input-required', 'working', 'completed', 'failed', 'canceled'];
export const TASK_TRIGGERS: readonly TaskTrigger[] = ['payment-submitted', 'settlement-failed-before-funds', 'provider-delivered', 'provider-failed-after-payment', 'channel-not-drawn', 'cancel'];

const TERMINAL: ReadonlySet<TaskState> = new Set<TaskState>(['completed', 'failed', 'canceled']);

/** Completed, failed and canceled tasks accept nothing more (spec 3.1). */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/**
 * The transitions of spec 3.1: every other (state, trigger) pair is refused. Of its channel rows, a
 * refused voucher (the over-draw among them) is a settlement that failed before funds moved, a
 * delivered task whose draw lost its race with a close is delivered, and a provider failure or
 * serve timeout under a voucher draws nothing (`channel-not-drawn`), so the same voucher may come again.
 */
const TRANSITIONS: Readonly<Record<TaskState, Partial<Record<TaskTrigger, TaskState>>>> = {
  'input-required': { 'payment-submitted': 'working', cancel: 'canceled' },
  // `working` is persisted before any funds move, so a settlement that fails before then may be retried on the same task.
  working: { 'settlement-failed-before-funds': 'input-required', 'provider-delivered': 'completed', 'provider-failed-after-payment': 'failed', 'channel-not-drawn': 'input-required' },
  completed: {},
  failed: {},
  canceled: {},
};

/** Where `trigger` takes a task in `state`, or the JSON-RPC error (spec 7) that refuses it. */
export function transition(state: TaskState, trigger: TaskTrigger): { to: TaskState } | { refused: A2ARefusal } {
  const to = TRANSITIONS[state][trigger];
  if (to !== undefined) return { to };
  return { refused: refusal(state, trigger) };
}

function refusal(state: TaskState, trigger: TaskTrigger): A2ARefusal {
  switch (trigger) {
    case 'payment-submitted':
      // A payment refused by the task's state is a payment failure, not a server fault: the client must not
      // resubmit it. A working task is already being paid for (it returns to input-required only if that
      // settlement fails before funds move); a canceled task rejects a later payment before settlement.
      return {
        code: A2A_ERRORS.paymentFailed,
        message: state === 'working' ? 'task is working on an earlier payment; it accepts no further payment' : `task is ${state}; it accepts no payment`,
      };
    case 'cancel':
      // Spec 7: -32002 for a working or terminal task; only input-required can be canceled.
      return { code: A2A_ERRORS.taskNotCancelable, message: `task is ${state}; only a task in input-required can be canceled` };
    default:
      // The payment leg's outcomes apply only to the working task that leg made: anything else is a gateway fault.
      return { code: A2A_ERRORS.internal, message: `task is ${state}, not working; the outcome ${trigger} does not apply` };
  }
}
