import { IsIn, IsOptional, IsString, Matches, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { NAME_LENGTH, WALLET_ADDRESS } from '../domain/org';
import { ORG_ROLES, type OrgRole } from '../domain/org-role';

const WALLET_MESSAGE = 'wallet address must be base58, 32 to 44 characters';
/** Half of a surrogate pair without its other half: not text, and PostgreSQL refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A name as the database keeps it: 1 to 128 characters counted as code points (as `char_length`
 * counts them, where class-validator's length counts UTF-16 units), well-formed text (a lone
 * surrogate cannot be stored), and no control characters (NUL cannot be stored at all).
 */
@ValidatorConstraint({ name: 'resourceName' })
class ResourceName implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || LONE_SURROGATE.test(value) || /\p{Cc}/u.test(value)) return false;
    const length = [...value].length;
    return length >= NAME_LENGTH.min && length <= NAME_LENGTH.max;
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

/** The wallet's ed25519 signature of a consent text, base64 (src/modules/orgs/domain/team-wallet-consent.ts). */
const CONSENT_SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;
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
