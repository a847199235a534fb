/**
 * The protocol's rules as the model checker reads them (lib/verify, issue 25): the supervisor's
 * decision rule, a pure function of the record and the timings. The transitions, the workflow
 * versions and the retry budget's reservation are contracts already (contracts/index.ts). Tooling
 * reaches a wing only through its public face; this file is that face for the protocol's rules, so
 * the model is generated from the code that runs, not from a copy.
 */
export {
  decideSupervision,
  type SupervisionDecision,
  type SupervisionTimings,
} from './domain/supervision-rules';
