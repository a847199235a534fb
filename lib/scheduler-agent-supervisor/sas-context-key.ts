/**
 * The CDK context keys of the orders wing, in a module of their own: the tests, the release tooling
 * and the config read them without loading the CDK app.
 */
/** CDK context keys this wing reads besides the platform's and the downstream endpoints. */
export const SasContextKey = {
  /** Operator email subscribed to the alert topic. */
  AlertEmail: 'alertEmail',
  /** Admission limit and shard count overriding the profile's (a test's small limit). */
  AdmissionLimit: 'admissionLimit',
  AdmissionShards: 'admissionShards',
  /** The orders API's stage throttle, `<rate>/<burst>` (a test's small limit). */
  ApiThrottle: 'apiThrottle',
  /** Clients' throttleShare, `<client>:<percent>,...` (a test's unequal shares). */
  ThrottleShares: 'throttleShares',
  /** The workflow version new orders get (a rollout): keeps 1..n live. */
  WorkflowVersion: 'workflowVersion',
  /** Stop deploying workflow versions below this one (once no order is left on them). */
  RetireWorkflowVersionsBefore: 'retireWorkflowVersionsBefore',
  /** Another profile's workflow timings (the tests' `timings=default` on the virtual clock). */
  Timings: 'timings',
  /** `true` deploys the operator console (S3 + CloudFront + Cognito); off by default. */
  Console: 'console',
  /** The console sign-in page's domain prefix (default `orders-console-<account id>`). */
  ConsoleSignInDomainPrefix: 'consoleSignInDomainPrefix',
} as const;
