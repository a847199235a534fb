/** A queue policy's explicit denies, as the local SQS service evaluates them (queue-policy.ts). */

import { localUsersNamedBy } from '../../../../lib/local-runtime/provisioners/sqs';
import {
  arnMatches,
  compileQueuePolicy,
  type SqsRequestContext,
} from '../../../../lib/local-runtime/sqs/queue-policy';

const ACCOUNT = '000000000000';
const QUEUE_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:replies.fifo`;
const CLIENT = `arn:aws:iam::${ACCOUNT}:user/web-shop`;
const OTHER = `arn:aws:iam::${ACCOUNT}:user/call-center`;

const request = (action: string, principalArn: string, queueArn = QUEUE_ARN): SqsRequestContext => ({
  action,
  principalArn,
  queueArn,
});

const policy = (...statements: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement: statements });

/** The client-only statement the reply queues carry (lib/scheduler-agent-supervisor/client-reply-queues.ts). */
const onlyTheClient = {
  Sid: 'OnlyTheClientConsumes',
  Effect: 'Deny',
  Principal: { AWS: '*' },
  Action: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'],
  Resource: QUEUE_ARN,
  Condition: { ArnNotEquals: { 'aws:PrincipalArn': CLIENT } },
};
const theClientAllowed = {
  Sid: 'TheClientConsumes',
  Effect: 'Allow',
  Principal: { AWS: CLIENT },
  Action: ['sqs:ReceiveMessage'],
  Resource: QUEUE_ARN,
};
const tlsOnly = {
  Effect: 'Deny',
  Principal: { AWS: '*' },
  Action: 'sqs:*',
  Resource: QUEUE_ARN,
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
};

describe('queue policy: explicit denies', () => {
  const compiled = compileQueuePolicy(policy(tlsOnly, onlyTheClient, theClientAllowed));

  it('denies the consuming actions to every principal but the client, and names the statement', () => {
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(compiled.deniedBy(request(action, OTHER))).toBe('OnlyTheClientConsumes');
      expect(compiled.deniedBy(request(action, `arn:aws:iam::${ACCOUNT}:root`))).toBe(
        'OnlyTheClientConsumes',
      );
      expect(compiled.deniedBy(request(action, CLIENT))).toBeUndefined();
    }
  });

  it('denies nothing the statements do not name (sending, reading attributes), to anyone', () => {
    for (const action of ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:PurgeQueue']) {
      expect(compiled.deniedBy(request(action, OTHER))).toBeUndefined();
    }
  });

  it('takes the TLS-only statement as holding: loopback stands for TLS, so it denies nothing', () => {
    expect(compileQueuePolicy(policy(tlsOnly)).deniedBy(request('sqs:SendMessage', OTHER))).toBeUndefined();
    expect(compiled.unsupported).toEqual([]);
  });

  it('does not evaluate Allow statements: nothing they leave out is denied', () => {
    const allowOnly = compileQueuePolicy(policy(theClientAllowed));
    expect(allowOnly.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBeUndefined();
    expect(allowOnly.unsupported).toEqual([]);
  });

  it('matches actions case-insensitively and with wildcards', () => {
    const deny = (Action: unknown) =>
      compileQueuePolicy(policy({ Effect: 'Deny', Principal: '*', Action, Resource: '*' }));
    expect(deny('sqs:*').deniedBy(request('sqs:ReceiveMessage', CLIENT))).toBe('#0');
    expect(deny('SQS:receivemessage').deniedBy(request('sqs:ReceiveMessage', CLIENT))).toBe('#0');
    expect(deny('sqs:Receive*').deniedBy(request('sqs:ReceiveMessage', CLIENT))).toBe('#0');
    expect(deny('sqs:Receive*').deniedBy(request('sqs:DeleteMessage', CLIENT))).toBeUndefined();
    expect(deny('sqs:?eleteMessage').deniedBy(request('sqs:DeleteMessage', CLIENT))).toBe('#0');
    expect(deny('*').deniedBy(request('sqs:DeleteMessage', CLIENT))).toBe('#0');
  });

  it('applies a statement only to the resources it names', () => {
    const onOther = compileQueuePolicy(
      policy({ ...onlyTheClient, Resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:other` }),
    );
    expect(onOther.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBeUndefined();
    const wildcard = compileQueuePolicy(
      policy({ ...onlyTheClient, Resource: `arn:aws:sqs:*:${ACCOUNT}:repl*` }),
    );
    expect(wildcard.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBe('OnlyTheClientConsumes');
    const absent = compileQueuePolicy(policy({ ...onlyTheClient, Resource: undefined }));
    expect(absent.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBe('OnlyTheClientConsumes');
  });

  it.each([
    ['ArnNotLike', `arn:aws:iam::${ACCOUNT}:user/web-*`, OTHER, true],
    ['ArnNotLike', `arn:aws:iam::${ACCOUNT}:user/web-*`, CLIENT, false],
    ['ArnEquals', OTHER, OTHER, true],
    ['ArnEquals', OTHER, CLIENT, false],
    ['ArnLike', 'arn:aws:iam::*:user/call-*', OTHER, true],
    ['StringEquals', OTHER, OTHER, true],
    ['StringNotEquals', CLIENT, OTHER, true],
    ['StringNotEquals', CLIENT, CLIENT, false],
    ['StringLike', '*:user/call-center', OTHER, true],
    ['StringNotLike', '*:user/web-shop', CLIENT, false],
  ])('%s %s: %s is denied: %s', (operator, value, caller, denied) => {
    const compiled = compileQueuePolicy(
      policy({ ...onlyTheClient, Condition: { [operator]: { 'aws:PrincipalArn': value } } }),
    );
    expect(compiled.unsupported).toEqual([]);
    expect(compiled.deniedBy(request('sqs:ReceiveMessage', caller)) !== undefined).toBe(denied);
  });

  it('holds a negated operator with several values only when the caller matches none of them', () => {
    const two = compileQueuePolicy(
      policy({ ...onlyTheClient, Condition: { ArnNotEquals: { 'aws:PrincipalArn': [CLIENT, OTHER] } } }),
    );
    expect(two.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBeUndefined();
    expect(two.deniedBy(request('sqs:ReceiveMessage', `arn:aws:iam::${ACCOUNT}:user/third`))).toBeDefined();
  });

  it('matches each ARN component on its own: a wildcard does not cross a colon', () => {
    expect(arnMatches('arn:aws:iam::*:user/web-shop', CLIENT)).toBe(true);
    expect(arnMatches('arn:aws:*:user/web-shop', CLIENT)).toBe(false);
    expect(arnMatches('arn:aws:iam::000000000000:user/*', CLIENT)).toBe(true);
    expect(arnMatches('arn:aws:iam::000000000000:user/Web-shop', CLIENT)).toBe(false);
  });

  it('denies to the principals a statement names: an ARN, an account id, an account root', () => {
    const to = (AWS: unknown) =>
      compileQueuePolicy(policy({ Effect: 'Deny', Principal: { AWS }, Action: 'sqs:*', Resource: '*' }));
    expect(to(OTHER).deniedBy(request('sqs:SendMessage', OTHER))).toBe('#0');
    expect(to(OTHER).deniedBy(request('sqs:SendMessage', CLIENT))).toBeUndefined();
    expect(to(ACCOUNT).deniedBy(request('sqs:SendMessage', CLIENT))).toBe('#0');
    expect(to('111122223333').deniedBy(request('sqs:SendMessage', CLIENT))).toBeUndefined();
    expect(to(`arn:aws:iam::${ACCOUNT}:root`).deniedBy(request('sqs:SendMessage', OTHER))).toBe('#0');
    expect(to([CLIENT, OTHER]).deniedBy(request('sqs:SendMessage', OTHER))).toBe('#0');
  });
});

describe('queue policy: what is not evaluated makes its statement not apply, and is named', () => {
  it.each([
    [
      { ...onlyTheClient, Condition: { ArnNotEqualsIfExists: { 'aws:PrincipalArn': CLIENT } } },
      /ArnNotEqualsIfExists on key aws:PrincipalArn/,
    ],
    [
      { ...onlyTheClient, Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } } },
      /StringEquals on key aws:SourceAccount/,
    ],
    [
      { ...onlyTheClient, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } },
      /IpAddress on key aws:SourceIp/,
    ],
    [
      { ...onlyTheClient, Condition: { Bool: { 'aws:ViaAWSService': 'false' } } },
      /Bool on key aws:ViaAWSService/,
    ],
    [{ ...onlyTheClient, Principal: { Service: 'events.amazonaws.com' } }, /a Service principal/],
    [
      { ...onlyTheClient, Principal: undefined, NotPrincipal: { AWS: CLIENT } },
      /NotPrincipal is not evaluated/,
    ],
    [{ ...onlyTheClient, Action: undefined, NotAction: 'sqs:SendMessage' }, /NotAction is not evaluated/],
  ])('%#: named, and denies nothing', (statement, named) => {
    const compiled = compileQueuePolicy(policy(statement));
    expect(compiled.unsupported).toEqual([expect.stringMatching(named)]);
    expect(compiled.unsupported[0]).toMatch(
      /^Deny statement (OnlyTheClientConsumes|#0) does not apply locally: /,
    );
    expect(compiled.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBeUndefined();
  });

  it('keeps evaluating the statements it supports beside one it does not', () => {
    const compiled = compileQueuePolicy(
      policy(
        { ...onlyTheClient, Sid: 'Odd', Condition: { DateLessThan: { 'aws:CurrentTime': '2030' } } },
        onlyTheClient,
      ),
    );
    expect(compiled.unsupported).toHaveLength(1);
    expect(compiled.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBe('OnlyTheClientConsumes');
  });

  it('names a policy that is not JSON, and denies nothing', () => {
    const compiled = compileQueuePolicy('{not json');
    expect(compiled.unsupported).toEqual(['the policy is not JSON']);
    expect(compiled.deniedBy(request('sqs:ReceiveMessage', OTHER))).toBeUndefined();
  });
});

describe('the local users a queue policy names', () => {
  it('finds users of the local account in principals and aws:PrincipalArn conditions, not wildcards', () => {
    const document = JSON.parse(
      policy(
        onlyTheClient,
        { ...theClientAllowed, Principal: { AWS: [OTHER, `arn:aws:iam::${ACCOUNT}:role/ops`] } },
        {
          ...onlyTheClient,
          Condition: { ArnNotLike: { 'aws:PrincipalArn': `arn:aws:iam::${ACCOUNT}:user/*` } },
        },
        { ...theClientAllowed, Principal: { AWS: 'arn:aws:iam::111122223333:user/elsewhere' } },
      ),
    ) as Record<string, unknown>;
    expect(localUsersNamedBy(document, ACCOUNT)).toEqual(['call-center', 'web-shop']);
  });
});
