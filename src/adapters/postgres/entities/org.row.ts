import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Org, OrgApiKey, OrgMember, Team, TeamWallet } from '../../../modules/orgs/domain/org';
import type { OrgRole } from '../../../modules/orgs/domain/org-role';

/** The columns an org and a team share: their id, their name and their two times. */
abstract class NamedRow {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

@Entity({ name: 'orgs' })
export class OrgRow extends NamedRow implements Org {}

@Entity({ name: 'org_members' })
export class OrgMemberRow implements OrgMember {
  @PrimaryColumn('uuid', { name: 'org_id' })
  orgId!: string;

  @PrimaryColumn('varchar', { name: 'wallet_address', length: 44 })
  walletAddress!: string;

  @Column('text')
  role!: OrgRole;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}

@Entity({ name: 'teams' })
export class TeamRow extends NamedRow implements Team {
  @Column('uuid', { name: 'org_id' })
  orgId!: string;
}

@Entity({ name: 'team_wallets' })
export class TeamWalletRow implements TeamWallet {
  @PrimaryColumn('uuid', { name: 'team_id' })
  teamId!: string;

  @PrimaryColumn('varchar', { name: 'wallet_address', length: 44 })
  walletAddress!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('boolean')
  consented!: boolean;
}

@Entity({ name: 'org_api_keys' })
export class OrgApiKeyRow implements OrgApiKey {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'org_id' })
  orgId!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: OrgRole;

  /** Not selected by default, so a key read for listing never carries its hash. */
  @Column('bytea', { name: 'secret_hash', select: false })
  secretHash!: Buffer;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}

/** An audit entry as stored: the actor as `admin` or `key:<id>`, the resources as the API shows them. */
@Entity({ name: 'org_audit' })
export class OrgAuditRow {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'org_id' })
  orgId!: string;

  @Column('text')
  actor!: string;

  @Column('text')
  action!: string;

  @Column('jsonb', { nullable: true })
  before!: unknown;

  @Column('jsonb', { nullable: true })
  after!: unknown;

  @Column('timestamptz')
  at!: Date;
}
