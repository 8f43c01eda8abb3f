// Package digraph finds cycles in a small directed graph of named nodes,
// deterministically. The simulator's lock-order graph (sim.LockGraph) and
// the lock-order check (workloads/oracle) both use it, so that the check
// reports exactly the cycles the simulator's own report names.
package digraph

import (
	"slices"
	"strings"
)

// Edge is a directed edge From -> To.
type Edge struct{ From, To string }

// Cycles returns one cycle through each strongly connected set of nodes
// that has one, as its edges in path order. Nodes are tried in sorted
// order and each node's successors in the sorted order of the edges, by
// depth-first search, so the same edges in any order give the same cycles.
// A node on a reported cycle starts no further search. Duplicate edges count
// once.
func Cycles(edges []Edge) [][]Edge {
	edges = slices.Clone(edges)
	slices.SortFunc(edges, func(a, b Edge) int {
		return strings.Compare(a.From+"\x00"+a.To, b.From+"\x00"+b.To)
	})
	edges = slices.Compact(edges)
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e.From] = append(adj[e.From], e.To)
	}
	nodes := make([]string, 0, len(adj))
	for n := range adj {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	var out [][]Edge
	reported := map[string]bool{}
	for _, n := range nodes {
		if reported[n] {
			continue
		}
		path := cycleThrough(n, adj)
		if path == nil {
			continue
		}
		c := make([]Edge, len(path))
		for i := range path {
			c[i] = Edge{path[i], path[(i+1)%len(path)]}
			reported[path[i]] = true
		}
		out = append(out, c)
	}
	return out
}

// cycleThrough returns a path start -> ... -> start, if any.
func cycleThrough(start string, adj map[string][]string) []string {
	visited := map[string]bool{}
	var path []string
	var dfs func(n string) bool
	dfs = func(n string) bool {
		path = append(path, n)
		for _, m := range adj[n] {
			if m == start {
				return true
			}
			if !visited[m] {
				visited[m] = true
				if dfs(m) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if dfs(start) {
		return path
	}
	return nil
}
