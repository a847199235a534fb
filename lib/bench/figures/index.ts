/**
 * Every figure of `npm run bench`, keyed by id (FIGURE_IDS gives the order). A figure not yet
 * built is absent: the runner says so instead of printing a number.
 */
import type { Figure, FigureId } from '../core/figure';
import { campaignSpeedFigure } from './campaign-speed';
import { capacityFigure } from './capacity';
import { deliveryCostFigure } from './delivery-cost';
import { functionsFigure } from './functions';
import { localThroughputFigure } from './local-throughput';
import { orderCostFigure } from './order-cost';
import { recoveryFigure } from './recovery';
import { supervisorSweepFigure } from './supervisor-sweep';

export const FIGURES: Partial<Record<FigureId, Figure>> = {
  'supervisor-sweep': supervisorSweepFigure,
  'order-cost': orderCostFigure,
  'delivery-cost': deliveryCostFigure,
  capacity: capacityFigure,
  'local-throughput': localThroughputFigure,
  recovery: recoveryFigure,
  functions: functionsFigure,
  'campaign-speed': campaignSpeedFigure,
};
