import { Injectable } from '@nestjs/common';
import bs58 from 'bs58';
import { closeMessage } from '../../../../libs/channel-client/messages';
import { verifySignature } from '../../../../libs/channel-client/signer';
import type { Channel } from '../domain/channel';
import { channelErrors } from '../domain/channel-errors';
import { ChannelAvailability, type ChannelParts } from './channel-availability';
import { channelLock } from './channel-lock';

/** A close is quick: the lock is held only while the channel moves to `closing`. */
const CLOSE_LOCK_MS = 10_000;

/**
 * `POST /v1/channel/close` and the idle close (docs/decisions.md, "Channels"): the close
 * takes the channel's draw lock, so it never lands in the middle of a draw, and moves it to
 * `closing` with its close job; ChannelWorker sends the settlement. Repeating it is idempotent.
 */
@Injectable()
export class ChannelCloses {
  constructor(private readonly availability: ChannelAvailability) {}

  /** The agent's close: signed by the session key over the close message. */
  async close(channelId: string, signature: string): Promise<Channel> {
    const parts = this.availability.require();
    const channel = await this.read(parts, channelId);
    const signed = Buffer.from(signature, 'base64');
    if (signed.length !== 64 || !verifySignature(closeMessage(bs58.decode(channel.id)), signed, channel.sessionKey)) throw channelErrors.badSignature('close');
    if (channel.status === 'opening') throw channelErrors.notOpen();
    if (channel.status !== 'open') return channel;
    return (await this.closeLocked(parts, channel.id, () => true)) ?? throwBusy(channel);
  }

  /**
   * The gateway's close of a channel idle since before `idleSince`, judged again under the lock (a
   * draw may have just been recorded); false when a draw holds it or it was drawn meanwhile.
   */
  async closeIdle(channelId: string, idleSince: Date): Promise<boolean> {
    const parts = this.availability.require();
    return (await this.closeLocked(parts, channelId, (channel) => (channel.lastDrawAt ?? channel.createdAt) < idleSince)) !== null;
  }

  /** Any channel by its id, in any status. */
  async read(parts: ChannelParts, channelId: string): Promise<Channel> {
    const channel = isChannelId(channelId) ? await parts.ledger.find(channelId) : null;
    if (!channel) throw channelErrors.notFound();
    return channel;
  }

  /** Under the draw lock, the channel as it now is, closed if `closable` says so; null when busy or not closable. */
  private async closeLocked(parts: ChannelParts, channelId: string, closable: (channel: Channel) => boolean): Promise<Channel | null> {
    const token = await channelLock(parts.locks, channelId, CLOSE_LOCK_MS);
    if (token === null) return null;
    try {
      const channel = await parts.ledger.find(channelId);
      if (!channel || (channel.status === 'open' && !closable(channel))) return null;
      return (await parts.ledger.requestClose(channelId, new Date())) ?? channel;
    } finally {
      await parts.locks.release(channelId, token);
    }
  }
}

function throwBusy(channel: Channel): never {
  throw channelErrors.busy(channel.lastCumulative);
}

function isChannelId(value: string): boolean {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}
