import { IsOptional, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { parseUsdc } from '../../billing/domain/atomic-usdc';
import { BUDGET_WINDOWS, type BudgetLimits } from '../domain/budget';

/** What a bigint column holds: 9,223,372,036,854.775807 USDC. */
const MAX_LIMIT_ATOMIC = 2n ** 63n - 1n;

/**
 * A USDC amount as a JSON number with at most 6 decimals. A JSON number arrives as a double, whose
 * shortest decimal form is what the client wrote for every amount of 15 significant digits or
 * fewer; that form is parsed exactly, never multiplied in floating point.
 */
@ValidatorConstraint({ name: 'usdcAmount' })
class UsdcAmount implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    const atomic = parseUsdc(String(value));
    return atomic !== null && atomic <= MAX_LIMIT_ATOMIC;
  }

  defaultMessage(): string {
    return '$property must be a non-negative number of USDC with at most 6 decimals, below 9.2e12';
  }
}

/** PUT .../budget (spec 2.11): an omitted window is uncapped. */
export class BudgetDto {
  @IsOptional()
  @Validate(UsdcAmount)
  hourly?: number;

  @IsOptional()
  @Validate(UsdcAmount)
  daily?: number;

  @IsOptional()
  @Validate(UsdcAmount)
  monthly?: number;
}

/** The body's limits in atomic USDC; validation has made every present one parseable. */
export function budgetLimits(body: BudgetDto): BudgetLimits {
  const limits = {} as BudgetLimits;
  for (const window of BUDGET_WINDOWS) {
    const value = body[window];
    limits[window] = value === undefined || value === null ? null : (parseUsdc(String(value)) as bigint);
  }
  return limits;
}
