/**
 * Every credential the local account knows, and the principal each stands for: the account's root
 * (the developer who deploys: `target.json`'s `credentials`), the local IAM users (`identities`:
 * the operator, the clients; secrets kept per data directory by LocalIdentities), and role sessions
 * minted for the functions and state machines, as Lambda and Step Functions hand out temporary
 * credentials of the resource's role (an ASIA access key id, a secret and a session token). The
 * emulators verify each request's SigV4 signature against this registry (sigv4.ts) and learn who
 * calls.
 */

import { randomBytes } from 'node:crypto';
import type { RuntimeClock } from '../clock';
import type { LocalIdentities } from './identities';
import {
  type Principal,
  type RoleSessionPrincipal,
  roleSessionPrincipal,
  rootPrincipal,
  userPrincipal,
} from './principals';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials only (role sessions). */
  readonly sessionToken?: string;
}

/** A known credential and who it is. */
export interface CallerCredentials extends SigningCredentials {
  readonly principal: Principal;
}

function randomText(bytes: number, encoding: 'hex' | 'base64url'): string {
  return randomBytes(bytes).toString(encoding);
}

export class CredentialRegistry {
  private readonly sessions = new Map<string, CallerCredentials>();
  private readonly sessionByKey = new Map<string, CallerCredentials>();

  constructor(
    private readonly accountId: string,
    /** The root's access key (the developer's credentials in target.json). */
    private readonly root: SigningCredentials,
    private readonly users: Pick<LocalIdentities, 'known' | 'identity'>,
    private readonly clock?: RuntimeClock,
  ) {}

  /**
   * The times a signature may be judged against (SigV4's 15-minute skew): the runtime's clock,
   * which the sandboxes sign with, and, on a virtual clock, the machine's too, which the
   * developer's own tools sign with.
   */
  signingTimes(): readonly number[] {
    // wall clock: the developer's tools sign with it
    const machine = Date.now();
    return !this.clock || this.clock.mode === 'wall' ? [machine] : [this.clock.now(), machine];
  }

  get rootCredentials(): CallerCredentials {
    return { ...this.root, principal: rootPrincipal(this.accountId) };
  }

  /** The credential an access key id names, if the account knows it. */
  known(accessKeyId: string): CallerCredentials | undefined {
    if (accessKeyId === this.root.accessKeyId) return this.rootCredentials;
    const session = this.sessionByKey.get(accessKeyId);
    if (session) return session;
    const user = this.users.known(accessKeyId);
    return user ? { ...user, principal: userPrincipal(this.accountId, user.accessKeyId) } : undefined;
  }

  /** A local IAM user's credentials, created the first time (see LocalIdentities). */
  user(name: string): CallerCredentials {
    const identity = this.users.identity(name);
    return { ...identity, principal: userPrincipal(this.accountId, name) };
  }

  /** Temporary credentials of a session of `roleArn`, minted once per role and session name. */
  roleSession(roleArn: string, sessionName: string): CallerCredentials & { principal: RoleSessionPrincipal } {
    const key = `${roleArn} ${sessionName}`;
    const existing = this.sessions.get(key);
    if (existing) return existing as CallerCredentials & { principal: RoleSessionPrincipal };
    const minted = {
      accessKeyId: `ASIA${randomText(8, 'hex').toUpperCase()}`,
      secretAccessKey: randomText(30, 'base64url'),
      sessionToken: randomText(48, 'base64url'),
      principal: roleSessionPrincipal(roleArn, sessionName),
    };
    this.sessions.set(key, minted);
    this.sessionByKey.set(minted.accessKeyId, minted);
    return minted;
  }
}
