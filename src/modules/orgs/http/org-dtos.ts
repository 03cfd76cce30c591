import { IsIn, IsOptional, IsString, Matches, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { CONSENT_SIGNATURE, isResourceName, NAME_LENGTH, WALLET_ADDRESS } from '../domain/org';
import { ORG_ROLES, type OrgRole } from '../domain/org-role';

const WALLET_MESSAGE = 'wallet address must be base58, 32 to 44 characters';

/** A name of an org, team or key (isResourceName). */
@ValidatorConstraint({ name: 'resourceName' })
class ResourceName implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isResourceName(value);
  }

  defaultMessage(): string {
    return `$property must be text of ${NAME_LENGTH.min} to ${NAME_LENGTH.max} characters without control characters`;
  }
}

/** POST /v1/orgs. */
export class CreateOrgDto {
  @Validate(ResourceName)
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
  @Validate(ResourceName)
  name!: string;
}

const CONSENT_MESSAGE = 'consent_signature must be the base64 of a 64-byte ed25519 signature';

/** POST /v1/orgs/{org_id}/teams/{team_id}/wallets. */
export class AddTeamWalletDto {
  @IsString()
  @Matches(WALLET_ADDRESS, { message: `wallet_address: ${WALLET_MESSAGE}` })
  wallet_address!: string;

  /** Required from an org key; the admin token may leave it out. */
  @IsOptional()
  @IsString()
  @Matches(CONSENT_SIGNATURE, { message: CONSENT_MESSAGE })
  consent_signature?: string;
}

/** POST /v1/orgs/{org_id}/teams/{team_id}/wallets/{wallet}/leave. */
export class LeaveTeamDto {
  @IsString()
  @Matches(CONSENT_SIGNATURE, { message: CONSENT_MESSAGE })
  consent_signature!: string;
}

/** POST /v1/orgs/{org_id}/api-keys. */
export class IssueKeyDto {
  @Validate(ResourceName)
  name!: string;

  @IsIn(ORG_ROLES)
  role!: OrgRole;
}
