import type { AppLogger } from '../logging/app-logger';
import type { GatewayConfig } from '../config/gateway-config';
import { BackgroundTasks } from './background-tasks';

function recordingLogger(): { logger: AppLogger; errors: unknown[][] } {
  const errors: unknown[][] = [];
  const logger = { setContext: () => undefined, error: (...args: unknown[]) => errors.push(args), warn: () => undefined } as unknown as AppLogger;
  return { logger, errors };
}

const config = { http: { shutdownGraceMs: 1000 } } as GatewayConfig;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('BackgroundTasks', () => {
  it('runs tasks without blocking the caller and drains them, including ones added while draining', async () => {
    const { logger } = recordingLogger();
    const tasks = new BackgroundTasks(logger, config);
    const done: string[] = [];
    tasks.run('first', async () => {
      await sleep(30);
      done.push('first');
      tasks.run('second', async () => {
        await sleep(30);
        done.push('second');
      });
    });
    expect(done).toEqual([]);
    expect(await tasks.drain(1000)).toBe(true);
    expect(done).toEqual(['first', 'second']);
    expect(tasks.pending).toBe(0);
  });

  it('logs a failing task with its name and never rejects', async () => {
    const { logger, errors } = recordingLogger();
    const tasks = new BackgroundTasks(logger, config);
    tasks.run('cache write', async () => {
      throw new Error('redis gone');
    });
    tasks.run('sync failure', () => {
      throw new Error('thrown synchronously');
    });
    expect(await tasks.drain(1000)).toBe(true);
    expect(errors.map(([fields]) => (fields as { task: string }).task).sort()).toEqual(['cache write', 'sync failure']);
  });

  it('gives up draining after the timeout', async () => {
    const { logger } = recordingLogger();
    const tasks = new BackgroundTasks(logger, config);
    tasks.run('stuck', () => new Promise(() => undefined));
    expect(await tasks.drain(50)).toBe(false);
    expect(tasks.pending).toBe(1);
  });
});
