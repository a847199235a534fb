/**
 * `cdk synth -c profile=local --output DIR`: the assembly the local runtime runs. The same
 * synthesis and bundling as a deployment (the CDK CLI and bin/app.ts), only the profile's numbers
 * differ. Used by npm start, the acceptance setup, the chaos campaign and the restart test.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '../..');

export interface SynthesizeOptions {
  /**
   * Show the CLI's output as it runs (npm start). Otherwise the bundling chatter is kept back and
   * shown only in the error when synthesis fails.
   * @default false
   */
  readonly echo?: boolean;
  /**
   * Further CDK context (`-c key=value`), e.g. a test's own small limits. The app reads it as it
   * reads any deployment's context; the runtime knows nothing of its meaning.
   * @default - none
   */
  readonly context?: Readonly<Record<string, string>>;
}

export function synthesizeLocalAssembly(outputDir: string, options: SynthesizeOptions = {}): void {
  const cdk = resolve(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
  const args = ['synth', '--quiet', '-c', 'profile=local', '--output', outputDir];
  for (const [key, value] of Object.entries(options.context ?? {})) args.push('-c', `${key}=${value}`);
  if (options.echo) {
    execFileSync(cdk, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
    return;
  }
  try {
    execFileSync(cdk, args, { cwd: PROJECT_ROOT, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`cdk synth -c profile=local failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
