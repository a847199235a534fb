/**
 * The IAM of one running local runtime, shared by every provisioner and service through the runtime
 * context: the account's roles and users and their policies, every credential and whom it stands
 * for, the authorizer every request goes through, and the KMS keys' policies.
 */

import type { RuntimeClock } from '../clock';
import { LocalKeys } from '../kms/local-keys';
import { Authorizer, type DenialRecord, type IamMode } from './authorizer';
import { CredentialRegistry, type SigningCredentials } from './credential-registry';
import type { LocalIdentities } from './identities';
import { LocalAccount } from './local-account';

export interface RuntimeIam {
  readonly account: LocalAccount;
  readonly credentials: CredentialRegistry;
  readonly authorizer: Authorizer;
  readonly keys: LocalKeys;
}

export function createRuntimeIam(options: {
  readonly accountId: string;
  readonly region: string;
  readonly mode: IamMode;
  readonly log: (line: string) => void;
  /** The root's credentials (target.json's `credentials`). */
  readonly root: SigningCredentials;
  readonly users: LocalIdentities;
  readonly onDenied?: (record: DenialRecord) => void;
  /** What signatures are judged by (credential-registry.ts signingTimes). @default - the wall clock */
  readonly clock?: RuntimeClock;
}): RuntimeIam {
  const account = new LocalAccount(options.accountId);
  return {
    account,
    credentials: new CredentialRegistry(options.accountId, options.root, options.users, options.clock),
    authorizer: new Authorizer(account, {
      mode: options.mode,
      region: options.region,
      log: options.log,
      ...(options.onDenied ? { onDenied: options.onDenied } : {}),
    }),
    keys: new LocalKeys(options.region, options.accountId),
  };
}
