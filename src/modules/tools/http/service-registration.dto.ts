import { IsArray, IsBoolean, IsOptional, IsString, Length, Matches, MaxLength, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { SERVICE_ID } from '../domain/service-entry';
import { parseServicePrice } from '../domain/service-price';

/** A registry price: a JSON number or a decimal string with at most 6 decimals, converted exactly. */
@ValidatorConstraint({ name: 'servicePrice' })
class ServicePriceValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const atomic = parseServicePrice(value);
    return atomic !== undefined && (atomic === null || atomic < 2n ** 63n);
  }

  defaultMessage(): string {
    return '$property must be a non-negative USDC amount (number or decimal string) with at most 6 decimals, or null';
  }
}

@ValidatorConstraint({ name: 'solanaOnly' })
class SolanaOnly implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && value.length === 1 && value[0] === 'solana';
  }

  defaultMessage(): string {
    return '$property must be ["solana"]';
  }
}

/** POST /v1/services/register: spec 2.7's fields without `source` and `internal` (docs/decisions.md, "The service registry"). */
export class ServiceRegistrationDto {
  @IsString()
  @Matches(SERVICE_ID, { message: 'id must be 1 to 64 characters of [a-z0-9-]' })
  id!: string;

  @IsString()
  @Length(1, 128)
  name!: string;

  @IsString()
  @Length(1, 64)
  category!: string;

  @IsString()
  @MaxLength(2048)
  endpoint!: string;

  @IsBoolean()
  x402_enabled!: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  pricing?: string;

  @IsOptional()
  @IsArray()
  @Validate(SolanaOnly)
  @JSONSchema({ type: 'array', items: { type: 'string', enum: ['solana'] } })
  chains?: string[];

  @IsOptional()
  @Validate(ServicePriceValue)
  @JSONSchema({ anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }], description: 'USDC before the fee: a number or a decimal string of at most 6 places' })
  price_per_request_usdc?: number | string | null;
}
