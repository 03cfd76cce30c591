import { Writable } from 'node:stream';

/** A pino destination that keeps every log line, for assertions. */
export class LogCapture extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    callback();
  }

  get text(): string {
    return this.chunks.join('');
  }

  get lines(): Array<Record<string, unknown>> {
    return this.text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
