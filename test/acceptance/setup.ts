/**
 * How the acceptance suite finds its target. Environment:
 *   ACCEPTANCE_TARGET   path of a target description (default: the one global-setup wrote
 *                       after starting the local runtime)
 *   ACCEPTANCE_KIND     local | localstack | aws (default local)
 *   ACCEPTANCE_PROFILE  the config profile the target was deployed with (local | default); sets
 *                       how long scenarios may take (default: local)
 *   ACCEPTANCE_API_KEY  value of the orders API's key (AWS and LocalStack enforce it)
 *   ACCEPTANCE_DELIVERIES_API_KEY  value of the deliveries API's key (its own API, its own key)
 */
import {
  type AppUnderTest,
  assertAllEndpointsLocal,
  loadTargetDescription,
  ORDERS_APP,
  type TargetDescription,
} from './target';

export const TARGET_ENV = 'ACCEPTANCE_TARGET';

/** The target as the suite of `app` sees it (its stack's outputs and API key). */
export function acceptanceTarget(app: AppUnderTest = ORDERS_APP): TargetDescription {
  const file = process.env[TARGET_ENV];
  if (!file) {
    throw new Error(
      `${TARGET_ENV} is not set: run through \`npm test\` (starts the local runtime) or name a target file`,
    );
  }
  const kind = (process.env.ACCEPTANCE_KIND ?? 'local') as TargetDescription['kind'];
  const apiKey = process.env[app.apiKeyEnv];
  const target = loadTargetDescription(file, { kind, ...(apiKey ? { apiKey } : {}) }, app);
  if (target.kind !== 'aws') assertAllEndpointsLocal(target);
  return target;
}

const profile = process.env.ACCEPTANCE_PROFILE ?? 'local';

/** Upper bounds derived from the profiles in lib/scheduler-agent-supervisor/config.ts (local: seconds, default: minutes). */
export const scenarioTimeoutMs =
  profile === 'local' ? { normal: 60_000, recovery: 120_000 } : { normal: 600_000, recovery: 1_500_000 };
