/**
 * The order's workflow graph (issue 26, item 2): the definition that ran its latest attempt, drawn
 * as SVG from a pure derivation (workflow-graph.ts) and a layered layout (workflow-layout.ts, by
 * dagre), with the states the attempt entered highlighted, the failed one red and written
 * `failed`, the compensation states in their own colour, the others dimmed (and still readable).
 * Every state is reached with Tab and says its detail on focus, hover or click (use-chart-detail.ts);
 * under it, its text equivalent: the states entered in order with how each ended, then those not
 * entered. Read beside the order's detail (OrderWorkflow says when); the layout is computed again
 * only when the definition or the path changed.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type {
  OperatorWorkflowBody,
  OperatorWorkflowExecution,
} from '../../lambdas/scheduler-agent-supervisor/contracts/operator-workflow';
import { useConsoleApi } from './api';
import { ChartFrame } from './ChartFrame';
import { ErrorNotice, formatTime } from './common';
import { useChartDetail } from './use-chart-detail';
import { usePolling } from './use-polling';
import {
  outcomeWords,
  parseDefinition,
  type WorkflowGraph,
  type WorkflowNode,
  workflowGraphOf,
} from './workflow-graph';
import { layoutWorkflow, type Point, type WorkflowLayout } from './workflow-layout';

/** The node's look: by how its last entry ended, or dimmed when never entered. */
function nodeClass(node: WorkflowNode): string {
  if (node.outcome === undefined) return 'wf-node wf-not-entered';
  const kind = node.outcome === 'Failed' ? 'wf-failed' : node.compensation ? 'wf-compensation' : 'wf-entered';
  return `wf-node ${kind}${node.outcome === 'Running' ? ' wf-running' : ''}`;
}

const pathOf = (points: readonly Point[]) =>
  points
    .map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`)
    .join(' ');

function WorkflowLegend() {
  return (
    <ul className="chart-legend">
      {[
        ['wf-entered', 'entered'],
        ['wf-compensation', 'compensation, entered'],
        ['wf-failed', 'failed (and written over the box)'],
        ['wf-not-entered', 'not entered'],
      ].map(([kind, label]) => (
        <li key={kind}>
          <svg viewBox="0 0 14 14" aria-hidden="true" className="swatch">
            <g className={`wf-node ${kind}`}>
              <rect x={1} y={1} width={12} height={12} />
            </g>
          </svg>{' '}
          {label}
        </li>
      ))}
      <li>
        <span className="key-taken">━</span> the way this attempt went
      </li>
      <li>
        <span className="key-catch">┅</span> a Catch
      </li>
    </ul>
  );
}

/**
 * The transitions: routed polylines (the way this attempt went on top), and stubs for shared
 * Catches (highlighted when taken; their target is highlighted as entered).
 */
function Transitions({ graph, layout }: { readonly graph: WorkflowGraph; readonly layout: WorkflowLayout }) {
  const edges = [...graph.edges].sort((a, b) => Number(a.taken) - Number(b.taken));
  return (
    <>
      {edges.map((edge) => {
        if (layout.stubs.has(edge.id)) {
          const box = layout.nodes.get(edge.from);
          if (box === undefined) return null;
          const y = box.y + box.height / 2;
          return (
            <path
              key={edge.id}
              className={`wf-edge wf-stub${edge.taken ? ' wf-taken' : ''}`}
              data-edge={`${edge.from} -> ${edge.to}`}
              data-taken={edge.taken}
              d={`M${box.x + box.width},${y} l9,0`}
              markerEnd={edge.taken ? 'url(#wf-arrow-taken)' : 'url(#wf-arrow)'}
            >
              <title>{`Catch ${edge.label ?? ''} → ${edge.to}${edge.taken ? ' (taken by this attempt)' : ''}`}</title>
            </path>
          );
        }
        const points = layout.edges.get(edge.id) ?? [];
        const middle = points[Math.floor(points.length / 2)];
        return (
          <g key={edge.id} data-edge={`${edge.from} -> ${edge.to}`} data-taken={edge.taken}>
            <path
              className={`wf-edge wf-edge-${edge.kind}${edge.taken ? ' wf-taken' : ''}`}
              d={pathOf(points)}
              markerEnd={edge.taken ? 'url(#wf-arrow-taken)' : 'url(#wf-arrow)'}
            >
              <title>{`${edge.from} → ${edge.to}${edge.label ? ` (${edge.label})` : ''}`}</title>
            </path>
            {edge.taken && edge.label && middle && (
              <text className="wf-edge-label" x={middle.x + 4} y={middle.y - 3}>
                {edge.label}
              </text>
            )}
          </g>
        );
      })}
    </>
  );
}

function GraphDrawing({
  graph,
  layout,
  title,
}: {
  readonly graph: WorkflowGraph;
  readonly layout: WorkflowLayout;
  readonly title: string;
}) {
  const { detail, show } = useChartDetail();
  // The box opens on the states this attempt entered (the start state when none): centred when they
  // fit, else from their left. Again only when they reach further (a new state out of the span, a
  // new attempt), so a poll that changes nothing there leaves the operator's scrolling alone.
  const transitions = useRef<SVGGElement>(null);
  const entered = graph.nodes
    .filter((node) => node.runs.length > 0 || node.id === graph.startAt)
    .map((node) => layout.nodes.get(node.id))
    .filter((box): box is NonNullable<typeof box> => box !== undefined);
  const left = Math.min(...entered.map((box) => box.x));
  const right = Math.max(...entered.map((box) => box.x + box.width));
  useEffect(() => {
    const scroller = transitions.current?.closest('.chart-scroll');
    if (!scroller || !Number.isFinite(left)) return;
    const width = scroller.clientWidth;
    scroller.scrollLeft = Math.max(0, right - left <= width ? (left + right - width) / 2 : left - 12);
  }, [left, right]);
  // Tab goes through the states top to bottom, left to right, as they are drawn.
  const nodes = [...graph.nodes].sort((a, b) => {
    const boxA = layout.nodes.get(a.id);
    const boxB = layout.nodes.get(b.id);
    return (boxA?.y ?? 0) - (boxB?.y ?? 0) || (boxA?.x ?? 0) - (boxB?.x ?? 0);
  });
  return (
    <ChartFrame
      className="workflow-graph"
      titleId="workflow-graph-title"
      title={title}
      width={layout.width}
      height={layout.height}
      naturalSize
      detail={detail}
      detailTestId="workflow-detail"
      hint="Hover over or focus (Tab) a state for its detail."
      caption={
        <>
          <WorkflowLegend />
          The definition that ran the latest attempt, drawn the same for every order of its version. A Catch
          that most states share (to FencedOut or AttemptAbandoned) is a short stub on its state, highlighted
          when this attempt took it; each state's detail names its Catches. The list below says the same in
          words.
        </>
      }
    >
      <defs>
        <ArrowMarker id="wf-arrow" size={7} className="wf-arrow" />
        <ArrowMarker id="wf-arrow-taken" size={6} className="wf-arrow-taken" />
      </defs>
      <g ref={transitions}>
        <Transitions graph={graph} layout={layout} />
      </g>
      {nodes.map((node) => {
        const box = layout.nodes.get(node.id);
        if (box === undefined) return null;
        return (
          <g
            key={node.id}
            className={nodeClass(node)}
            data-state={node.id}
            data-outcome={node.outcome ?? 'NotEntered'}
            data-compensation={node.compensation}
            {...show(node.detail)}
          >
            <title>{node.detail}</title>
            <rect x={box.x} y={box.y} width={box.width} height={box.height} rx={4} />
            <text x={box.x + box.width / 2} y={box.y + box.height / 2 + 4} textAnchor="middle">
              {node.id}
            </text>
            {node.label !== node.id && (
              // The tag (`— failed`) over the box's right end: the box is sized by the name only.
              <text className="wf-tag" x={box.x + box.width} y={box.y - 3} textAnchor="end">
                {node.label.slice(node.id.length)}
              </text>
            )}
          </g>
        );
      })}
    </ChartFrame>
  );
}

/** The graph and its text equivalent, for an execution read. */
function ExecutionWorkflow({
  body,
  execution,
}: {
  readonly body: OperatorWorkflowBody;
  readonly execution: OperatorWorkflowExecution;
}) {
  const pathKey = JSON.stringify(execution.path);
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathKey stands for the path (a new array every read)
  const drawn = useMemo(() => {
    try {
      const graph = workflowGraphOf(parseDefinition(execution.definition), execution.path);
      return { graph, layout: layoutWorkflow(graph) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }, [execution.definition, pathKey]);
  if ('error' in drawn) return <ErrorNotice error={drawn.error} />;
  const { graph, layout } = drawn;
  const summary = [
    `${execution.name}, workflow version ${body.workflowVersion}, ${execution.status}`,
    `${graph.path.length} states entered of ${graph.nodes.length}`,
    graph.failed.length > 0 ? `failed in ${graph.failed.join(', ')}` : 'no failed state',
    graph.compensationTaken ? 'the compensation path was taken' : 'no compensation',
  ].join('; ');
  return (
    <>
      <p data-testid="workflow-summary">{summary}.</p>
      {!execution.pathComplete && (
        <p className="notice">
          The history is longer than the console reads: the path shown is its beginning.
        </p>
      )}
      <GraphDrawing graph={graph} layout={layout} title={`Workflow of ${execution.name}: ${summary}`} />
      <h3 id="workflow-path-title">States entered, in order</h3>
      <ol className="workflow-path" aria-labelledby="workflow-path-title" data-testid="workflow-path">
        {graph.path.map((run) => (
          <li
            key={`${run.enteredAt}|${run.name}`}
            data-state={run.name}
            data-outcome={run.outcome}
            className={run.outcome === 'Failed' ? 'wf-path-failed' : undefined}
          >
            <time dateTime={run.enteredAt}>{formatTime(run.enteredAt)}</time>{' '}
            <span className="mono">{run.name}</span> ({run.type}): {outcomeWords(run)}
          </li>
        ))}
      </ol>
      <details>
        <summary>States not entered ({graph.notEntered.length})</summary>
        <p className="mono" data-testid="workflow-not-entered">
          {graph.notEntered.join(', ')}
        </p>
      </details>
    </>
  );
}

const UNAVAILABLE: Readonly<Record<NonNullable<OperatorWorkflowBody['unavailable']>, string>> = {
  NotStarted: 'No attempt has started yet: there is no execution to draw.',
  NotFound:
    'Step Functions does not know the latest attempt’s execution (it keeps finished ones 90 days, or the workflow version is not deployed here).',
};

/**
 * The Workflow section's content: reads the order's workflow and draws it. Every POLL_INTERVAL_MS
 * while the execution runs; once it has ended (or there is none), again only when the order's
 * record moves (`revision`: a new attempt, a new state), so an open page of a finished order costs
 * Step Functions nothing (its history and describe APIs are throttled per account).
 */
export function OrderWorkflow({
  orderId,
  revision,
}: {
  readonly orderId: string;
  readonly revision: string;
}) {
  const api = useConsoleApi();
  const [running, setRunning] = useState(true);
  const polled = usePolling(() => api.workflow(orderId), `workflow|${orderId}`, { paused: !running });
  const body = polled.data;
  const ended = body !== undefined && body.execution?.status !== 'RUNNING';
  if (running === ended) setRunning(!ended);
  const seen = useRef(revision);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reads again when the record moves, not when refresh is remade
  useEffect(() => {
    if (seen.current === revision) return;
    seen.current = revision;
    polled.refresh();
  }, [revision]);
  return (
    <div data-testid="workflow">
      <ErrorNotice error={polled.error} />
      {body === undefined ? (
        !polled.error && <p>Reading the workflow…</p>
      ) : body.execution === undefined ? (
        <p data-testid="workflow-unavailable">{UNAVAILABLE[body.unavailable ?? 'NotFound']}</p>
      ) : (
        <ExecutionWorkflow body={body} execution={body.execution} />
      )}
    </div>
  );
}

/** An arrowhead for the transitions' ends (`marker-end`), drawn in the class's colour. */
function ArrowMarker({
  id,
  size,
  className,
}: {
  readonly id: string;
  readonly size: number;
  readonly className: string;
}) {
  return (
    <marker id={id} viewBox="0 0 8 8" refX="8" refY="4" markerWidth={size} markerHeight={size} orient="auto">
      <path d="M0,0 L8,4 L0,8 z" className={className} />
    </marker>
  );
}
