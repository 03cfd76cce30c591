import { Injectable, Optional } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import type { BudgetLimits, BudgetSpend, BudgetSubject } from '../domain/budget';
import type { Actor } from '../domain/org';
import { BudgetStore } from '../ports/budget-store';
import { OrgDirectory } from './org-directory';

/** A budget as GET shows it: the limits, and the settled spend of the current windows. */
export interface BudgetState {
  limits: BudgetLimits;
  spend: BudgetSpend;
}

const UNCAPPED: BudgetLimits = { hourly: null, daily: null, monthly: null };

/**
 * Team and wallet budgets (spec 2.11, 4.9; docs/decisions.md, "Budgets"). Setting replaces all
 * three limits. Reservations against them are made on the paid path, through the payments
 * module's BudgetReservations port, by the same storage adapter.
 */
@Injectable()
export class BudgetDirectory {
  constructor(
    private readonly orgs: OrgDirectory,
    @Optional() private readonly store?: BudgetStore,
  ) {}

  async setTeamBudget(actor: Actor, orgId: string, teamId: string, limits: BudgetLimits): Promise<BudgetState> {
    const team = await this.orgs.team(orgId, teamId);
    return this.set({ kind: 'team', orgId, teamId: team.id }, limits, actor);
  }

  async teamBudget(orgId: string, teamId: string): Promise<BudgetState> {
    const team = await this.orgs.team(orgId, teamId);
    return this.state({ kind: 'team', orgId, teamId: team.id });
  }

  setWalletBudget(wallet: string, limits: BudgetLimits): Promise<BudgetState> {
    return this.set({ kind: 'wallet', wallet }, limits, { kind: 'admin' });
  }

  walletBudget(wallet: string): Promise<BudgetState> {
    return this.state({ kind: 'wallet', wallet });
  }

  private async set(subject: BudgetSubject, limits: BudgetLimits, actor: Actor): Promise<BudgetState> {
    await this.storage().setLimits(subject, limits, actor);
    return this.state(subject);
  }

  /** A subject without a budget reads as uncapped, with its spend all the same. */
  private async state(subject: BudgetSubject): Promise<BudgetState> {
    const store = this.storage();
    const [limits, spend] = await Promise.all([store.limits(subject), store.spend(subject, new Date())]);
    return { limits: limits ?? UNCAPPED, spend };
  }

  private storage(): BudgetStore {
    if (!this.store) throw new GatewayError('org.storage_not_configured', 'enterprise routes need storage; GW_STORAGE is none');
    return this.store;
  }
}
