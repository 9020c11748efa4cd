package k8s

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/dbrig/dbrig/spec"
)

// SecretFreeFile takes the secret driver properties (declared with a
// Redactor: a password, a URL with one) out of an experiment file's
// system.props and workload.props, for the ConfigMap: it returns the file
// without them, their values (for the run's Secret) and the coordinator's
// --set flags that put them back from the Secret's environment variables
// ($(ENV), expanded by Kubernetes in the pod). A secret value still found
// in the file after that (in a matrix, a comment) is refused: the ConfigMap
// is readable by anyone who may read the namespace's ConfigMaps.
func SecretFreeFile(name string, body []byte, secret map[string]bool) ([]byte, map[string]string, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return body, nil, nil, nil // ResolveBench read it: not reached
	}
	values := map[string]string{}
	var sets []string
	root := doc.Content[0]
	for _, section := range []string{"system", "workload"} {
		props := child(child(root, section), "props")
		if props == nil || props.Kind != yaml.MappingNode {
			continue
		}
		var keep []*yaml.Node
		for i := 0; i+1 < len(props.Content); i += 2 {
			k, v := props.Content[i], props.Content[i+1]
			if !secret[k.Value] {
				keep = append(keep, k, v)
				continue
			}
			values[k.Value] = v.Value
			sets = append(sets, fmt.Sprintf("--set=%s.props.%s=$(%s)", section, k.Value, SecretPropEnv(k.Value)))
		}
		props.Content = keep
	}
	dropComments(&doc) // comments are not configuration: an old password may sit in one
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: rewrite without its secrets: %w", name, err)
	}
	sort.Strings(sets)
	return buf.Bytes(), values, sets, checkNoSecretLeft(name, buf.Bytes(), values)
}

// checkNoSecretLeft refuses a file in which a secret value is still
// written.
func checkNoSecretLeft(name string, body []byte, values map[string]string) error {
	for k, v := range values {
		if len(v) >= 4 && bytes.Contains(body, []byte(v)) {
			return fmt.Errorf("%s: the value of the secret property %s is also written elsewhere in the file (a matrix, a comment): it would be put in a ConfigMap; give secrets in system.props only", name, k)
		}
	}
	return nil
}

// child is the value of key in a mapping node (nil: none).
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if strings.TrimSpace(n.Content[i].Value) == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// SecretInPropFile refuses a -P property file that sets a secret property:
// the file goes into the ConfigMap as written.
func SecretInPropFile(name string, body []byte, secret map[string]bool) error {
	p := spec.NewProps()
	if err := p.Load(name, bytes.NewReader(body)); err != nil {
		return nil // the run's own check reports it
	}
	var keys []string
	for k := range secret {
		if _, _, ok := p.Lookup(k); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	return fmt.Errorf("-P %s sets the secret property %s: the file would go into a ConfigMap; take it out and give it with -p %s=… (that goes into the Secret)", name, strings.Join(keys, ", "), keys[0])
}

// dropComments clears every comment of a YAML document.
func dropComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		dropComments(c)
	}
}
