import type { ServiceEntry } from '../domain/service-entry';

/** Where services registered at runtime are kept, so they survive a restart. */
export abstract class ServiceStore {
  /** Every runtime entry, oldest first. */
  abstract list(): Promise<ServiceEntry[]>;

  /** The runtime entry with this id, or null: what a paid proxy call reads, without the whole list. */
  abstract find(id: string): Promise<ServiceEntry | null>;

  /** Adds `entry` (source `api`) unless its id is taken; false when it is, the stored entry untouched. */
  abstract add(entry: ServiceEntry): Promise<boolean>;
}
