/**
 * Admission release: a consumer of the state table's stream (filtered to terminal records still
 * holding a slot) that gives each slot back to its counter once. Composition only.
 */
import { createDocumentClient } from '../../shared/aws-clients/dynamodb';
import { systemClock } from '../../shared/clock';
import { requireEnv } from '../../shared/env';
import { createObservability, instrumentedHandler } from '../../shared/observability';
import { admissionReleaseConsumer } from '../adapters/admission-release';
import { DynamoAdmissionSlots, DynamoDrainStatistics } from '../adapters/admission-store';
import { EnvKey, type OrderMetric } from '../contracts';

const observability = createObservability<OrderMetric>();
const documentClient = createDocumentClient(observability.tracer);
const admissionTable = requireEnv(EnvKey.AdmissionTableName);

export const handler = instrumentedHandler(
  observability,
  admissionReleaseConsumer({
    releaser: new DynamoAdmissionSlots(documentClient, {
      stateTable: requireEnv(EnvKey.StateTableName),
      admissionTable,
    }),
    drain: new DynamoDrainStatistics(documentClient, admissionTable),
    clock: systemClock,
    observability,
  }),
);
