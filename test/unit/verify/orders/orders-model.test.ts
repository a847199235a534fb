/**
 * The orders model is generated from the code's own rules (lib/verify/orders): every transition of
 * the table is in it, a changed guard changes it, a guard on a path it leaves out is refused, the
 * supervisor's table is the code's rule's answers, and each broken variant is caught with a trail.
 * The model is generated at each run and never committed, so it cannot be stale.
 */

import {
  RESERVE_CALL,
  STATE_TRANSITIONS,
  StateAttr,
} from '../../../../lambdas/scheduler-agent-supervisor/contracts';
import { decideSupervision } from '../../../../lambdas/scheduler-agent-supervisor/protocol';
import { describeCheck, formatTrail, runSpin } from '../../../../lib/verify';
import { brokenVariants, ORDERS_PROTOCOL, ordersModel } from '../../../../lib/verify/orders';
import { reservationGuard } from '../../../../lib/verify/orders/reservation-guard';
import { modelTimings, supervisionTable } from '../../../../lib/verify/orders/supervision-table';

describe('the orders model', () => {
  const model = ordersModel();

  it('renders every transition of STATE_TRANSITIONS (per step for step transitions)', () => {
    for (const name of Object.keys(STATE_TRANSITIONS)) {
      expect(model.source).toMatch(new RegExp(`inline T_${name}(_0)?\\(`));
    }
  });

  it('changes when a transition condition changes', () => {
    const { completeStep } = ORDERS_PROTOCOL.transitions;
    if (completeStep === undefined) throw new Error('no completeStep');
    const changed = ordersModel({
      ...ORDERS_PROTOCOL,
      transitions: {
        ...ORDERS_PROTOCOL.transitions,
        completeStep: { ...completeStep, condition: completeStep.condition.slice(1) },
      },
    });
    expect(changed.source).not.toBe(model.source);
    const inline = (source: string) =>
      source.slice(source.indexOf('inline T_completeStep_0('), source.indexOf('inline T_completeStep_1('));
    expect(inline(model.source)).toContain('(r_ProcessState == S_Processing)');
    expect(inline(changed.source)).not.toContain('(r_ProcessState == S_Processing)');
  });

  it('refuses a guard on a path the model leaves out, naming it', () => {
    const { markProcessed } = ORDERS_PROTOCOL.transitions;
    if (markProcessed === undefined) throw new Error('no markProcessed');
    expect(() =>
      ordersModel({
        ...ORDERS_PROTOCOL,
        transitions: {
          ...ORDERS_PROTOCOL.transitions,
          markProcessed: { ...markProcessed, condition: [{ path: [StateAttr.Plan], exists: true }] },
        },
      }),
    ).toThrow(/markProcessed: its condition names Plan, which the orders model leaves out/);
  });

  it("parses the reservation's condition, and refuses one it cannot read", () => {
    expect(reservationGuard(RESERVE_CALL)).toContain('(calls[op] < BUDGET)');
    expect(reservationGuard({ ...RESERVE_CALL, conditionExpression: 'attribute_exists(#orderId)' })).toBe(
      '1',
    );
    expect(() => reservationGuard({ ...RESERVE_CALL, conditionExpression: 'size(#calls) < :n' })).toThrow(
      /has no value for size/,
    );
  });

  it("asks the supervisor's own rule: an expired attempt at the threshold fails, below it resets", () => {
    const table = supervisionTable(decideSupervision, modelTimings(2, 1));
    expect(table).toContain(
      'ps == S_Processing && locked == 1 && fc == 0 && cfc == 0 -> kind = K_reset; nfc = 1',
    );
    expect(table).toContain(
      'ps == S_Processing && locked == 1 && fc == 1 && cfc == 0 -> kind = K_fail; nfc = 2',
    );
    expect(table).toContain('ps == S_Pending && locked == 0 && fc == 0 && cfc == 0 -> kind = K_restart');
  });

  it.each([
    [1, 'classic'],
    [3, 'lean'],
  ])(
    'models the pinned v%i (%s): safe wherever no retry budget can be spent',
    (version, shape) => {
      // One call a delivery and no crash: no redelivery can find its budget spent, so the pinned
      // versions' hole (the pinned-v* entries below) is out of reach, and all else must hold.
      const pinned = ordersModel(
        { ...ORDERS_PROTOCOL, workflowVersion: version },
        { bounds: { agentCalls: 1, crashes: 0 }, name: `orders-v${version}` },
      );
      expect(pinned.source).toContain(`An execution of the ${shape} shape`);
      const result = runSpin(pinned, { kind: 'safety' });
      expect(describeCheck(result)).toMatch(new RegExp(`orders-v${version} safety: holds`));
    },
    120_000,
  );

  it('finds a counterexample for each broken variant, with a readable trail', () => {
    // Each variant breaks the property its guard protects (the assertion spin names).
    const breaks: Record<string, string> = {
      'supervisor-ignores-deadline': '(r_CompleteByPhase==2)',
      'compensation-without-intent': '(r_ProcessState!=S_Compensated)||(((effect[0]!=1)||(undone[0]==1))',
      'completion-without-fence': '(r_LockedBy==g_writer)',
      'cancel-in-any-state': '(t_pre!=S_Compensated)||(r_ProcessState==S_Compensated)',
      'reservation-without-budget': '(calls[op]<=1)',
      'pinned-v1-spent-budget': '(r_ProcessState!=S_Compensated)||(((effect[0]!=1)||(undone[0]==1))',
      'pinned-v3-spent-budget': '(r_ProcessState!=S_Compensated)||(((effect[0]!=1)||(undone[0]==1))',
    };
    const variants = brokenVariants();
    expect(variants.map((variant) => variant.name)).toEqual(Object.keys(breaks));
    for (const variant of variants) {
      const result = runSpin(variant.model, { kind: 'safety' }, { breadthFirst: true });
      console.log(`${variant.name} (${variant.description}):\n${formatTrail(result)}`);
      expect(result.errors).toBeGreaterThan(0);
      expect(result.trail?.steps.length).toBeGreaterThan(3);
      expect(result.trail?.violation).toMatch(/^assertion violated/);
      expect(result.trail?.violation).toContain(breaks[variant.name]);
      // The trail names the step that broke it (the write, the call or the undo), in its last two lines.
      expect(result.trail?.steps.slice(-2).join('\n')).toMatch(
        /breaks a property|over the budget|undoes before|answers the perform/,
      );
    }
  }, 300_000);
});
