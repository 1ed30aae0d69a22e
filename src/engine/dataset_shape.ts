/**
 * What the load plans need to know of the prepared dataset (timing/load_strategy.ts `DatasetShape`). Sessions start
 * from root conversations only, so a dataset with child conversations (agent DAGs) is shaped by its roots: each
 * root's requests are those of its whole tree, every child counted each time it is started.
 */
import { InputError } from "../base/input_error.ts";
import type { DatasetShape } from "../timing/load_strategy.ts";
import type { StreamShape } from "../timing/trajectory.ts";
import type { PreparedConversation } from "./prepared_conversation.ts";

export function datasetShape(conversations: readonly PreparedConversation[], fromFile: boolean): DatasetShape {
  const treeRequests = treeRequestCounter(conversations);
  const roots = conversations.flatMap((c, i) => c.child === true ? [] : [i]);
  const turnCounts = roots.map(treeRequests);
  return {
    startTimestamps: roots.map((i) => conversations[i].turns[0].timestampMs),
    totalTurns: turnCounts.reduce((n, t) => n + t, 0),
    conversations: roots.length,
    turnCounts,
    fromFile,
    streams: () => conversations.map(streamShape),
  };
}

/** A conversation as agentic replay samples it: its turns' recorded times, think times and spawns. */
function streamShape(c: PreparedConversation): StreamShape {
  return {
    id: c.id,
    ...(c.child === true ? { child: true } : {}),
    turns: c.turns.map((t) => ({
      ...(t.recordedAtMs === undefined ? {} : { atMs: t.recordedAtMs }),
      ...(t.delayMs === undefined ? {} : { delayMs: t.delayMs }),
      ...(t.spawns === undefined ? {} : { spawns: t.spawns }),
      ...(t.requestFree === true ? { requestFree: true } : {}),
    })),
    ...(c.spawnsFirst === undefined ? {} : { spawnsFirst: c.spawnsFirst }),
  };
}

/** Requests one session of conversation `i` sends, its children's included. */
function treeRequestCounter(conversations: readonly PreparedConversation[]): (i: number) => number {
  const counted = new Map<number, number>();
  const visiting = new Set<number>();
  const count = (i: number): number => {
    const c = conversations[i];
    if (c.tree !== true) return c.turns.length;
    const known = counted.get(i);
    if (known !== undefined) return known;
    if (visiting.has(i)) throw new InputError(`conversation ${c.id} starts itself through its children (a cycle).`);
    visiting.add(i);
    let n = 0;
    for (const spawn of c.spawnsFirst ?? []) for (const child of spawn.children) n += count(child);
    for (const turn of c.turns) {
      if (turn.requestFree !== true) n++;
      for (const spawn of turn.spawns ?? []) for (const child of spawn.children) n += count(child);
    }
    visiting.delete(i);
    counted.set(i, n);
    return n;
  };
  return count;
}
