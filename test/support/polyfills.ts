// aws-local-stepfunctions 3 needs Promise.withResolvers (Node 22+); the local runtime ships the
// polyfill, and tests load the same one.
import '../../lib/local-runtime/stepfunctions/promise-polyfill';

// Tests run on this machine's Node 20; the deployed Lambdas run on nodejs22.x. The SDK's Node 20
// end-of-support notice is not actionable in tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
