import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  DEFAULT_WORKFLOW_VERSION,
  workflowSteps,
} from '../../../lambdas/scheduler-agent-supervisor/contracts';
import { RemoteServices } from '../../../lib/fakes/remote-services';
import { IdempotencyStore } from '../../../lib/platform/idempotency-store';
import { OperatorAlerts } from '../../../lib/platform/operator-alerts';
import { AdmissionStore } from '../../../lib/scheduler-agent-supervisor/admission';
import { AgentWorker } from '../../../lib/scheduler-agent-supervisor/agent';
import { loadConfig } from '../../../lib/scheduler-agent-supervisor/config';
import { OrdersDatabase } from '../../../lib/scheduler-agent-supervisor/orders-database';
import { StateStore } from '../../../lib/scheduler-agent-supervisor/state-store';
import { SubmissionApi } from '../../../lib/scheduler-agent-supervisor/submission-api';
import { Supervisor } from '../../../lib/scheduler-agent-supervisor/supervisor';
import { probeStack } from '../support/synth';

/** The steps of an order on the default workflow version (what these tests deploy). */
const V1_STEPS = workflowSteps(DEFAULT_WORKFLOW_VERSION);

const { timings, apiThrottle } = loadConfig('local');
const probe = () => probeStack();

describe('construct props are validated with errors naming the construct', () => {
  it('OperatorAlerts fails when alertEmail is not an email address', () => {
    const alerts = { sources: ['order-processing'], description: 'Probe alerts' };
    expect(() => new OperatorAlerts(probe(), 'Alerts', { ...alerts, alertEmail: 'ops' })).toThrow(
      "OperatorAlerts Probe/Alerts: alertEmail 'ops' is not an email address",
    );
  });

  it('OperatorAlerts fails when no event source is named', () => {
    expect(() => new OperatorAlerts(probe(), 'Alerts', { sources: [], description: 'Probe' })).toThrow(
      'OperatorAlerts Probe/Alerts: sources must be one or more EventBridge sources',
    );
  });

  it('RemoteServices fails when stallMillis is negative', () => {
    expect(() => new RemoteServices(probe(), 'Remote', { stallMillis: -1 })).toThrow(
      'RemoteServices Probe/Remote: stallMillis must be a non-negative integer, got -1',
    );
  });

  it('RemoteServices fails when slowMillis is not a whole number of milliseconds', () => {
    expect(
      () =>
        new RemoteServices(probe(), 'Remote', {
          stallMillis: 0,
          slowMillis: 1.5,
        }),
    ).toThrow('RemoteServices Probe/Remote: slowMillis must be a non-negative integer, got 1.5');
  });

  it('AgentWorker fails when the remote endpoint ends with a slash', () => {
    const stack = probe();
    const idempotencyStore = new IdempotencyStore(stack, 'Idempotency');
    expect(
      () =>
        new AgentWorker(stack, 'Agent', {
          step: V1_STEPS[0],
          timings,
          remoteEndpointUrl: 'https://remote.example/',
          remoteAuth: 'iam',
          idempotencyStore,
          stateStore: new StateStore(stack, 'State'),
          retryBudget: 36,
        }),
    ).toThrow("AgentWorker Probe/Agent: remoteEndpointUrl must not end with '/'");
  });

  describe('AgentWorker remote', () => {
    const agent = (remote: { url: string; auth: 'iam' | 'none'; withFunction: boolean }) => () => {
      const stack = probe();
      const remoteFunction = lambda.Function.fromFunctionAttributes(stack, 'Remote', {
        functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:remote',
        skipPermissions: true,
      });
      return new AgentWorker(stack, 'Agent', {
        step: V1_STEPS[0],
        timings,
        remoteEndpointUrl: remote.url,
        remoteAuth: remote.auth,
        ...(remote.withFunction && { remoteFunction }),
        idempotencyStore: new IdempotencyStore(stack, 'Idempotency'),
        stateStore: new StateStore(stack, 'State'),
        retryBudget: 36,
      });
    };

    it('fails when the endpoint is not an absolute URL', () => {
      expect(agent({ url: 'remote.example', auth: 'none', withFunction: false })).toThrow(
        "AgentWorker Probe/Agent: remoteEndpointUrl must be an absolute http(s) URL, got 'remote.example'",
      );
    });

    it('fails when IAM auth names no function to invoke', () => {
      expect(agent({ url: 'https://remote.example', auth: 'iam', withFunction: false })).toThrow(
        "AgentWorker Probe/Agent: remoteAuth 'iam' needs the remoteFunction the agent is allowed to invoke",
      );
    });

    it('fails when a function is given without IAM auth', () => {
      expect(agent({ url: 'https://remote.example', auth: 'none', withFunction: true })).toThrow(
        "AgentWorker Probe/Agent: remoteFunction is only used with remoteAuth 'iam'",
      );
    });
  });

  it('RemoteServices fails when its reserved concurrency is not a positive integer', () => {
    expect(
      () =>
        new RemoteServices(probe(), 'Remote', {
          stallMillis: 1000,
          reservedConcurrentExecutions: 0,
        }),
    ).toThrow('reservedConcurrentExecutions must be a positive integer, got 0');
  });

  it('Supervisor fails when the rate is not a whole number of minutes', () => {
    const stack = probe();
    expect(
      () =>
        new Supervisor(stack, 'Supervisor', {
          stateStore: new StateStore(stack, 'State'),
          startQueue: new sqs.Queue(stack, 'Start'),
          alertBus: new events.EventBus(stack, 'Bus'),
          timings: { ...timings, supervisorRateSeconds: 90 },
          dueShardCount: 4,
          stateMachines: new Map(),
        }),
    ).toThrow(
      /Supervisor Probe\/Supervisor: supervisorRateSeconds must be a whole number of minutes .* got 90/,
    );
  });

  it('SubmissionApi fails when the burst limit is below the rate limit', () => {
    const stack = probe();
    expect(
      () =>
        new SubmissionApi(stack, 'Submission', {
          stateStore: new StateStore(stack, 'State'),
          ordersDatabase: new OrdersDatabase(stack, 'Orders'),
          admissionStore: new AdmissionStore(stack, 'Admission'),
          admission: { limit: 10, shards: 2, reconcileGraceSeconds: 5 },
          workflowVersion: 1,
          startQueue: new sqs.Queue(stack, 'Start'),
          timings,
          dueShardCount: 4,
          retryBudget: 36,
          throttle: { rateLimit: apiThrottle.rateLimit, burstLimit: apiThrottle.rateLimit - 1 },
          clients: [{ name: 'web-shop', queue: new sqs.Queue(stack, 'Replies') }],
        }),
    ).toThrow(
      /SubmissionApi Probe\/Submission: throttle needs rateLimit > 0 and an integer burstLimit >= rateLimit/,
    );
  });
});
