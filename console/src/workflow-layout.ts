/**
 * Where the workflow graph's states and transitions are drawn: a layered layout (states in ranks
 * from the start downwards, crossings reduced, long transitions routed between the states rather
 * than through them) by @dagrejs/dagre, the well-kept layout Mermaid uses. Pure, and a function of
 * the definition only: what the attempt took changes colours, never positions, so every order of a
 * version is drawn the same and an operator can learn the picture (the tests check both, and that
 * no two states overlap and every transition starts on its state and ends on the next).
 *
 * Nearly every state of the scheduler catches a lost lock to FencedOut, and every agent call a
 * timeout to AttemptAbandoned: routed as lines, those catches alone made the v5 graph 4,000 px
 * wide. A Catch to a state that four or more Catches lead to is therefore always a stub on its
 * state (named in its detail and its tooltip, highlighted when the attempt took it; the target is
 * placed by the layout like any state). Of the settings tried on the deployed definitions
 * (console/README.md gives the measures), ranking from the start (rankFromStart), the up-right
 * alignment (mirrored) and Catches weighing little keep the happy path (StartAt to Processed) in
 * three columns and the drawing narrowest.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { WorkflowEdgeKind, WorkflowGraph } from './workflow-graph';

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
  /** The edges drawn as a stub on their state: Catches to a shared target. */
  readonly stubs: ReadonlySet<string>;
}

/** A state this many Catches lead to is a shared target (FencedOut, AttemptAbandoned). */
const SHARED_CATCH_TARGET = 4;

/** The edges not routed: Catches to a state SHARED_CATCH_TARGET or more Catches lead to (taken or not). */
function stubEdges(graph: WorkflowGraph): Set<string> {
  const catches = new Map<string, number>();
  for (const edge of graph.edges) {
    if (edge.kind === 'catch') catches.set(edge.to, (catches.get(edge.to) ?? 0) + 1);
  }
  return new Set(
    graph.edges
      .filter((edge) => edge.kind === 'catch' && (catches.get(edge.to) ?? 0) >= SHARED_CATCH_TARGET)
      .map((edge) => edge.id),
  );
}

/** A state's box: its label in the label font (11px monospace, about 6.7 px a character) and padding. */
const NODE_HEIGHT = 26;
const CHAR_WIDTH = 6.7;
const NODE_PADDING = 16;
const MARGIN = 12;

function nodeWidth(label: string): number {
  return Math.ceil(label.length * CHAR_WIDTH + NODE_PADDING);
}

/**
 * A state's box width, by its name only: the same however the attempt ended it (the `failed`,
 * `caught` or `running` tag of WorkflowNode.label is written over the box, in the gap between ranks).
 */
export function stateWidth(name: string): number {
  return nodeWidth(name);
}

/** The ranker's view of dagre's layered graph: acyclic by then, each edge with its minimum length. */
interface RankedGraph {
  nodes(): string[];
  inEdges(node: string): { v: string; w: string }[] | undefined;
  edge(edge: { v: string; w: string }): { minlen: number };
  node(node: string): { rank?: number };
}

/**
 * Ranks each state as near the start as its transitions allow (the longest way to it from a state
 * nothing leads to): the happy path's end sits under its last step, not at the bottom of the
 * drawing with the compensation's ends, as dagre's own longest-path ranker (from the ends) puts it.
 */
function rankFromStart(graph: RankedGraph): void {
  const ranks = new Map<string, number>();
  const rankOf = (node: string): number => {
    const known = ranks.get(node);
    if (known !== undefined) return known;
    ranks.set(node, 0); // dagre has made the graph acyclic; this only guards the recursion
    const rank = Math.max(
      0,
      ...(graph.inEdges(node) ?? []).map((edge) => rankOf(edge.v) + graph.edge(edge).minlen),
    );
    ranks.set(node, rank);
    return rank;
  };
  for (const node of graph.nodes()) graph.node(node).rank = rankOf(node);
}

/** How much each kind of transition pulls its states into line when states are ordered in a rank. */
const EDGE_WEIGHT: Readonly<Record<WorkflowEdgeKind, number>> = {
  next: 2,
  choice: 2,
  default: 2,
  branch: 2,
  join: 2,
  catch: 0.1,
};

export function layoutWorkflow(graph: WorkflowGraph): WorkflowLayout {
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: false });
  g.setGraph({
    rankdir: 'TB',
    // dagre runs a ranker given as a function (its types name only its own three).
    ranker: rankFromStart as unknown as GraphLabel['ranker'],
    align: 'UR',
    nodesep: 14,
    ranksep: 34,
    edgesep: 8,
    marginx: MARGIN,
    marginy: MARGIN,
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { width: stateWidth(node.id), height: NODE_HEIGHT });
  const stubs = stubEdges(graph);
  for (const edge of graph.edges) {
    if (stubs.has(edge.id)) continue;
    // By the definition only (never by `taken`): a Catch weighs little, the normal way a lot.
    g.setEdge(edge.from, edge.to, { weight: EDGE_WEIGHT[edge.kind], minlen: 1 });
  }
  dagre.layout(g);
  const { width = 0, height = 0 } = g.graph();
  // Mirrored left to right: the up-right alignment keeps the happy path straightest, and mirrored
  // it starts near the left, where the scrolling box opens (the measures are the same).
  const mirror = (x: number) => width - x;
  const nodes = new Map<string, Box>();
  for (const node of graph.nodes) {
    const { x = 0, y = 0, width: boxWidth, height: boxHeight } = g.node(node.id);
    nodes.set(node.id, {
      x: mirror(x) - boxWidth / 2,
      y: y - boxHeight / 2,
      width: boxWidth,
      height: boxHeight,
    });
  }
  const edges = new Map<string, Point[]>();
  for (const edge of graph.edges) {
    if (stubs.has(edge.id)) continue;
    const points = g.edge(edge.from, edge.to)?.points ?? [];
    edges.set(
      edge.id,
      points.map(({ x, y }) => ({ x: mirror(x), y })),
    );
  }
  return { width: Math.ceil(width), height: Math.ceil(height), nodes, edges, stubs };
}
