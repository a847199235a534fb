/**
 * What a workflow graph's layout must be, for the unit test (a sample of every state type) and the
 * infra test (the deployed versions' synthesized definitions): every state has a box inside the
 * drawing, no two boxes overlap, and every transition is a polyline whose first point is on its
 * state's border and whose last is on the next state's.
 */
import type { WorkflowGraph } from '../../console/src/workflow-graph';
import type { Box, Point, WorkflowLayout } from '../../console/src/workflow-layout';

const TOLERANCE = 1;

/** Whether a point lies on a box's border (within TOLERANCE). */
export function onBorder(point: Point, box: Box): boolean {
  const inside =
    point.x >= box.x - TOLERANCE &&
    point.x <= box.x + box.width + TOLERANCE &&
    point.y >= box.y - TOLERANCE &&
    point.y <= box.y + box.height + TOLERANCE;
  const nearEdge =
    Math.abs(point.x - box.x) <= TOLERANCE ||
    Math.abs(point.x - (box.x + box.width)) <= TOLERANCE ||
    Math.abs(point.y - box.y) <= TOLERANCE ||
    Math.abs(point.y - (box.y + box.height)) <= TOLERANCE;
  return inside && nearEdge;
}

function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function expectCleanLayout(graph: WorkflowGraph, layout: WorkflowLayout): void {
  expect([...layout.nodes.keys()].sort()).toEqual(graph.nodes.map((node) => node.id).sort());
  const boxes = [...layout.nodes.entries()];
  for (const [name, box] of boxes) {
    expect({
      name,
      inside:
        box.x >= 0 && box.y >= 0 && box.x + box.width <= layout.width && box.y + box.height <= layout.height,
    }).toEqual({ name, inside: true });
  }
  const overlapping = boxes.flatMap(([a, boxA], i) =>
    boxes
      .slice(i + 1)
      .filter(([, boxB]) => overlap(boxA, boxB))
      .map(([b]) => `${a} / ${b}`),
  );
  expect(overlapping).toEqual([]);
  // Every edge is routed or a stub; a stub is a Catch (to a shared target), taken or not.
  for (const edge of graph.edges) {
    expect({ edge: edge.id, drawn: layout.edges.has(edge.id) !== layout.stubs.has(edge.id) }).toEqual({
      edge: edge.id,
      drawn: true,
    });
    if (layout.stubs.has(edge.id))
      expect({ edge: edge.id, kind: edge.kind }).toEqual({ edge: edge.id, kind: 'catch' });
  }
  const loose = graph.edges
    .filter((edge) => !layout.stubs.has(edge.id))
    .filter((edge) => {
      const points = layout.edges.get(edge.id) ?? [];
      const first = points[0];
      const last = points.at(-1);
      const from = layout.nodes.get(edge.from);
      const to = layout.nodes.get(edge.to);
      return (
        points.length < 2 ||
        first === undefined ||
        last === undefined ||
        from === undefined ||
        to === undefined ||
        !onBorder(first, from) ||
        !onBorder(last, to)
      );
    });
  expect(loose.map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
}
