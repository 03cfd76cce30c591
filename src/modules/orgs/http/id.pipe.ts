import { Injectable, type PipeTransform } from '@nestjs/common';

/**
 * Ids in paths in the form they are stored in (UUIDs in lower case), so a resource reached as
 * `6F1C...` is the same, and written the same, as `6f1c...`; the guard compares them the same way.
 */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  transform(id: string): string {
    return id.toLowerCase();
  }
}
