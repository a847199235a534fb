/**
 * Where the workflow graph's states and transitions are drawn: a layered layout (states in ranks
 * from the start downwards, crossings reduced, long transitions routed between the states rather
 * than through them) by @dagrejs/dagre, the well-kept layout Mermaid uses. Measured against a
 * hand-written longest-path layering in console/README.md. Pure: the unit test checks that no two
 * states overlap and that every transition starts on its state and ends on the next.
 *
 * Nearly every state of the scheduler catches a lost lock to FencedOut, and every agent call a
 * timeout to AttemptAbandoned: routed as lines, those catches alone made the v5 graph 4,000 px
 * wide. A Catch to a state that four or more Catches lead to is therefore not routed unless this
 * attempt took it: it is a stub on its state (named in its detail and in the text equivalent), and
 * the graph is about 1,800 px wide.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { WorkflowGraph } from './workflow-graph';

export interface Box {
  /** Top-left corner, in SVG units. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface WorkflowLayout {
  readonly width: number;
  readonly height: number;
  /** By state name. */
  readonly nodes: ReadonlyMap<string, Box>;
  /** By edge id: the polyline from the first state's border to the second's (routed edges only). */
  readonly edges: ReadonlyMap<string, readonly Point[]>;
  /** The edges drawn as a stub on their state: Catches to a shared target, not taken. */
  readonly stubs: ReadonlySet<string>;
}

/** A state this many Catches lead to is a shared target (FencedOut, AttemptAbandoned). */
export const SHARED_CATCH_TARGET = 4;

/** The edges not routed: Catches to a state SHARED_CATCH_TARGET or more Catches lead to, not taken. */
export function stubEdges(graph: WorkflowGraph): Set<string> {
  const catches = new Map<string, number>();
  for (const edge of graph.edges) {
    if (edge.kind === 'catch') catches.set(edge.to, (catches.get(edge.to) ?? 0) + 1);
  }
  return new Set(
    graph.edges
      .filter(
        (edge) => edge.kind === 'catch' && !edge.taken && (catches.get(edge.to) ?? 0) >= SHARED_CATCH_TARGET,
      )
      .map((edge) => edge.id),
  );
}

/** A state's box: its label in the label font (11px monospace, about 6.7 px a character) and padding. */
export const NODE_HEIGHT = 26;
export const CHAR_WIDTH = 6.7;
const NODE_PADDING = 16;
const MARGIN = 12;

export function nodeWidth(label: string): number {
  return Math.ceil(label.length * CHAR_WIDTH + NODE_PADDING);
}

export function layoutWorkflow(graph: WorkflowGraph): WorkflowLayout {
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 34, edgesep: 8, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { width: nodeWidth(node.label), height: NODE_HEIGHT });
  const stubs = stubEdges(graph);
  for (const edge of graph.edges) {
    if (stubs.has(edge.id)) continue;
    // The way the attempt went weighs more: kept short and straight.
    g.setEdge(edge.from, edge.to, { weight: edge.taken ? 3 : 2 });
  }
  dagre.layout(g);
  const nodes = new Map<string, Box>();
  for (const node of graph.nodes) {
    const { x = 0, y = 0, width, height } = g.node(node.id);
    nodes.set(node.id, { x: x - width / 2, y: y - height / 2, width, height });
  }
  const edges = new Map<string, Point[]>();
  for (const edge of graph.edges) {
    if (stubs.has(edge.id)) continue;
    const points = g.edge(edge.from, edge.to)?.points ?? [];
    edges.set(
      edge.id,
      points.map(({ x, y }) => ({ x, y })),
    );
  }
  const { width = 0, height = 0 } = g.graph();
  return { width: Math.ceil(width), height: Math.ceil(height), nodes, edges, stubs };
}
