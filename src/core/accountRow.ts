// A row of the Account view as plain data: the account feature builds most of them, billing adds
// its Spending node, so the shape lives below both.
import type { AccountSshKey, TfaMethod } from '../api/types';

export interface AccountRow {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon: string;
  /** Menus match on this ('tfaMethod', 'tfaMethodPrimary', 'tfaMethodLocked' …). */
  contextValue?: string;
  method?: TfaMethod;
  /** An SSH key row's account key (for Copy Public Key and Remove). */
  sshKey?: AccountSshKey;
  children?: AccountRow[];
  /** A command to run on click (e.g. add a method from the empty state). */
  command?: string;
}
