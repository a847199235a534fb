/** The deployed console's platform constructs refuse bad props, naming the construct and the prop. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorSignIn } from '../../../lib/platform/operator-sign-in';
import { StaticSite } from '../../../lib/platform/static-site';
import { probeStack } from '../support/synth';

const probe = () => probeStack();
const CSP = "default-src 'self'; connect-src 'self'";
let assetsDir: string;

beforeAll(() => {
  assetsDir = mkdtempSync(join(tmpdir(), 'site-'));
  writeFileSync(join(assetsDir, 'index.html'), '<!doctype html>');
});
afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));

describe('StaticSite', () => {
  it('refuses a folder without index.html, a CSP without connect-src, bad log retention', () => {
    const empty = mkdtempSync(join(tmpdir(), 'site-empty-'));
    try {
      expect(
        () =>
          new StaticSite(probe(), 'Site', {
            assetsDir: empty,
            contentSecurityPolicy: CSP,
          }),
      ).toThrow(`StaticSite Probe/Site: no index.html in ${empty}: build the page first`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    expect(
      () =>
        new StaticSite(probe(), 'Site', {
          assetsDir,
          contentSecurityPolicy: "default-src 'self'",
        }),
    ).toThrow('StaticSite Probe/Site: the Content-Security-Policy must name connect-src');
    expect(
      () =>
        new StaticSite(probe(), 'Site', {
          assetsDir,
          contentSecurityPolicy: CSP,
          logRetentionDays: 0,
        }),
    ).toThrow('StaticSite Probe/Site: logRetentionDays must be a positive integer, got 0');
  });

  it('writes only plain .json files next to the page', () => {
    const site = new StaticSite(probe(), 'Site', {
      assetsDir,
      contentSecurityPolicy: CSP,
    });
    expect(() => site.addJsonFile('../index.html', {})).toThrow(
      "StaticSite Probe/Site: '../index.html' is not a plain .json file name",
    );
    expect(() => site.addJsonFile('config.json', { mode: 'deployed' })).not.toThrow();
  });
});

describe('OperatorSignIn', () => {
  const props = {
    callbackUrl: 'https://d1.cloudfront.net/',
    domainPrefix: 'orders-console-1',
  };

  it.each(['Orders', 'my-aws-console', 'cognito-ops', '-ops', 'ops-'])(
    'refuses the domain prefix %s',
    (domainPrefix) => {
      expect(() => new OperatorSignIn(probe(), 'SignIn', { ...props, domainPrefix })).toThrow(
        `OperatorSignIn Probe/SignIn: domainPrefix must be lowercase letters, digits and inner hyphens (at most 63) without aws, amazon or cognito, got '${domainPrefix}'`,
      );
    },
  );

  it('refuses a callback URL that is not https', () => {
    expect(
      () => new OperatorSignIn(probe(), 'SignIn', { ...props, callbackUrl: 'http://d1.cloudfront.net/' }),
    ).toThrow(
      "OperatorSignIn Probe/SignIn: callbackUrl must be an https URL, got 'http://d1.cloudfront.net/'",
    );
  });
});
