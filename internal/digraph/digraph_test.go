package digraph

import (
	"reflect"
	"testing"
)

func TestCycles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edges []Edge
		want  [][]Edge
	}{
		{"none", []Edge{{"a", "b"}, {"b", "c"}, {"a", "c"}}, nil},
		{"self", []Edge{{"a", "a"}}, [][]Edge{{{"a", "a"}}}},
		{"two", []Edge{{"b", "a"}, {"a", "b"}}, [][]Edge{{{"a", "b"}, {"b", "a"}}}},
		{
			// two strongly connected sets, one cycle each; c's is found
			// from c, the smallest node not on a reported cycle
			"sets", []Edge{{"d", "c"}, {"a", "b"}, {"c", "d"}, {"b", "a"}, {"b", "c"}, {"a", "b"}},
			[][]Edge{{{"a", "b"}, {"b", "a"}}, {{"c", "d"}, {"d", "c"}}},
		},
		{
			// the longer way round is taken when it sorts first
			"order", []Edge{{"a", "c"}, {"c", "a"}, {"a", "b"}, {"b", "c"}},
			[][]Edge{{{"a", "b"}, {"b", "c"}, {"c", "a"}}},
		},
	} {
		if got := Cycles(tc.edges); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Cycles = %v, want %v", tc.name, got, tc.want)
		}
	}
}
