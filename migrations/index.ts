import { CreateSpendLog1763769600000 } from './1763769600000-create-spend-log';
import { CreateReceipts1763856000000 } from './1763856000000-create-receipts';
import { SettlementLifecycle1764115200000 } from './1764115200000-settlement-lifecycle';
import { CreateOrgs1764300000000 } from './1764300000000-create-orgs';
import { CreateBudgets1764400000000 } from './1764400000000-create-budgets';
import { SpendLogByPayer1764500000000 } from './1764500000000-spend-log-by-payer';
import { CreateServices1764600000000 } from './1764600000000-create-services';
import { Escrow1764700000000 } from './1764700000000-escrow';
import { EscrowClaimsUnderFaults1764750000000 } from './1764750000000-escrow-claims-under-faults';
import { OperatorAudit1764800000000 } from './1764800000000-operator-audit';
import { TeamWalletConsent1764900000000 } from './1764900000000-team-wallet-consent';
import { Channels1765000000000 } from './1765000000000-channels';

/** Every migration, oldest first. Listed rather than globbed so tests (TS) and the build (JS) load the same set. */
export const MIGRATIONS = [
  CreateSpendLog1763769600000,
  CreateReceipts1763856000000,
  SettlementLifecycle1764115200000,
  CreateOrgs1764300000000,
  CreateBudgets1764400000000,
  SpendLogByPayer1764500000000,
  CreateServices1764600000000,
  Escrow1764700000000,
  EscrowClaimsUnderFaults1764750000000,
  OperatorAudit1764800000000,
  TeamWalletConsent1764900000000,
  Channels1765000000000,
];
