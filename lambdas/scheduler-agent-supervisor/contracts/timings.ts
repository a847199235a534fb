import * as z from 'zod';
import { jsonParser } from '../../shared/parse';

/** See WorkflowTimings.alertRedeliveryGraceSeconds. */
export const DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS = 60;

/**
 * Time windows and thresholds shared by the state machine (synth time) and the handlers (run
 * time). Chosen per profile in lib/scheduler-agent-supervisor/config.ts and passed to handlers as JSON in WORKFLOW_TIMINGS.
 */
export const WorkflowTimingsSchema = z
  .object({
    /** TimeoutSeconds of each agent callback task: the step deadline. */
    stepTimeoutSeconds: z.number().int().min(1),
    /** HeartbeatSeconds of each agent callback task; must be below stepTimeoutSeconds. */
    stepHeartbeatSeconds: z.number().int().min(1),
    /** Slack added per step to the stored CompleteBy so the supervisor never races a live task. */
    stepDeadlineSlackSeconds: z.number().int().min(0),
    /** A new order must be claimed within this window, else the supervisor re-queues it. */
    startGraceSeconds: z.number().int().min(1),
    /** Supervisor resets below this FailureCount; at it the order goes to Error. */
    maxFailures: z.number().int().min(1),
    /**
     * Compensation attempts the supervisor may declare failed (expired) before the order ends
     * CompensationFailed with an operator alert.
     */
    maxCompensationFailures: z.number().int().min(1),
    /** Back-off before a retry while FailureCount is below extendedBackoffAfter. */
    retryBackoffSeconds: z.number().int().min(0),
    /** From this FailureCount on, the back-off is extendedBackoffSeconds. */
    extendedBackoffAfter: z.number().int().min(1),
    extendedBackoffSeconds: z.number().int().min(0),
    /** Remote calls an agent may make for one request (first call included). */
    agentMaxCallAttempts: z.number().int().min(1),
    /** Base delay of the agent's full-jitter exponential back-off. */
    agentBackoffBaseMillis: z.number().int().min(1),
    agentBackoffCapMillis: z.number().int().min(1),
    /** Supervisor: how often it runs, and sweeps per invocation (sub-minute cadence on AWS). */
    supervisorRateSeconds: z.number().int().min(1),
    supervisorSweepsPerRun: z.number().int().min(1),
    supervisorPageSize: z.number().int().min(1).max(1000),
    /** Time a supervisor invocation may spend before it stops paging (leaves the rest to the next). */
    supervisorBudgetSeconds: z.number().int().min(1),
    /**
     * Age of an alert outbox entry after which the supervisor re-delivers it (the stream relay
     * gave up on it, or is slow): long enough that the relay normally wins, so redeliveries stay
     * rare. @default DEFAULT_ALERT_REDELIVERY_GRACE_SECONDS
     */
    alertRedeliveryGraceSeconds: z.number().int().min(1).optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.stepHeartbeatSeconds >= t.stepTimeoutSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['stepHeartbeatSeconds'],
        message: `must be below stepTimeoutSeconds (${t.stepTimeoutSeconds})`,
      });
    }
    if (t.extendedBackoffAfter >= t.maxFailures) {
      ctx.addIssue({
        code: 'custom',
        path: ['extendedBackoffAfter'],
        message: `must be below maxFailures (${t.maxFailures})`,
      });
    }
    if (t.agentBackoffCapMillis < t.agentBackoffBaseMillis) {
      ctx.addIssue({
        code: 'custom',
        path: ['agentBackoffCapMillis'],
        message: 'must be at least agentBackoffBaseMillis',
      });
    }
  });
export type WorkflowTimings = z.infer<typeof WorkflowTimingsSchema>;

const parseTimingsJson = jsonParser(WorkflowTimingsSchema, { rootLabel: '(root)' });

/** WORKFLOW_TIMINGS as handlers and the chaos runner read it; the error names every bad field. */
export function parseWorkflowTimings(json: string): WorkflowTimings {
  const parsed = parseTimingsJson(json);
  if (!parsed.ok) {
    throw new Error(
      `WORKFLOW_TIMINGS is ${parsed.problem === 'not-json' ? 'not valid JSON' : 'invalid'}: ${parsed.summary}`,
    );
  }
  return parsed.value;
}
