import { IsIn, IsString, Length, Matches } from 'class-validator';
import { NAME_LENGTH, WALLET_ADDRESS } from '../domain/org';
import { ORG_ROLES, type OrgRole } from '../domain/org-role';

const WALLET_MESSAGE = 'wallet address must be base58, 32 to 44 characters';

/** POST /v1/orgs. */
export class CreateOrgDto {
  @IsString()
  @Length(NAME_LENGTH.min, NAME_LENGTH.max)
  name!: string;

  @IsString()
  @Matches(WALLET_ADDRESS, { message: `owner_wallet: ${WALLET_MESSAGE}` })
  owner_wallet!: string;
}

/** POST /v1/orgs/{org_id}/members. */
export class AddMemberDto {
  @IsString()
  @Matches(WALLET_ADDRESS, { message: `wallet_address: ${WALLET_MESSAGE}` })
  wallet_address!: string;

  @IsIn(ORG_ROLES)
  role!: OrgRole;
}

/** POST /v1/orgs/{org_id}/teams. */
export class CreateTeamDto {
  @IsString()
  @Length(NAME_LENGTH.min, NAME_LENGTH.max)
  name!: string;
}

/** POST /v1/orgs/{org_id}/teams/{team_id}/wallets. */
export class AddTeamWalletDto {
  @IsString()
  @Matches(WALLET_ADDRESS, { message: `wallet_address: ${WALLET_MESSAGE}` })
  wallet_address!: string;
}

/** POST /v1/orgs/{org_id}/api-keys. */
export class IssueKeyDto {
  @IsString()
  @Length(NAME_LENGTH.min, NAME_LENGTH.max)
  name!: string;

  @IsIn(ORG_ROLES)
  role!: OrgRole;
}
