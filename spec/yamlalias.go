package spec

import (
	"go.yaml.in/yaml/v3"
)

// resolveAliases replaces every alias of a single value (*n where &n marks
// a scalar) with a copy of that value at the alias's position, so that
// "clients: *n" means what it says. An alias of a mapping or a sequence is
// refused where it is written: expanding those can grow a small file into
// a huge document, and dbrig's own keys never need one.
func resolveAliases(name string, n *yaml.Node) error {
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode {
			t := c.Alias
			for t != nil && t.Kind == yaml.AliasNode {
				t = t.Alias
			}
			if t == nil || t.Kind != yaml.ScalarNode {
				return &FileError{Pos: pos(name, c), Msg: "*" + c.Value + ": a YAML alias of a mapping or a list is not supported; write it out (aliases of single values are)"}
			}
			cp := *t
			cp.Anchor, cp.Line, cp.Column = "", c.Line, c.Column
			n.Content[i] = &cp
			continue
		}
		if err := resolveAliases(name, c); err != nil {
			return err
		}
	}
	return nil
}
