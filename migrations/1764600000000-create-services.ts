import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service registry's runtime entries (spec 2.7; src/modules/tools/ports/service-store.ts): those
 * registered through the admin route, kept so they survive a restart. The registry file's entries
 * are never stored. Registered services are external by definition, so there is no `internal`
 * column; the id is the registry key, so a second registration of it is refused by the primary key.
 */
export class CreateServices1764600000000 implements MigrationInterface {
  name = 'CreateServices1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE services (
        id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[a-z0-9-]{1,64}$'),
        name text NOT NULL,
        category text NOT NULL,
        endpoint text NOT NULL,
        x402_enabled boolean NOT NULL,
        description text,
        pricing text NOT NULL,
        price_atomic bigint CHECK (price_atomic >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Listed oldest first, ties by id in byte order (the "C" collation), as the registry file's entries are sorted whatever the server's locale.
    await queryRunner.query('CREATE INDEX services_created_at_idx ON services (created_at, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE services');
  }
}
