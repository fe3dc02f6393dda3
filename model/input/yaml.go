package input

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// LoadYAML reads inputs from a YAML mapping of flag names to scalar values. name is the file's
// name for error messages ("model.yaml:3: produce: ..."). An unknown key, a key given twice, a
// value that is not a scalar, or a bad value is an error; nothing is kept then.
func (in *Input) LoadYAML(name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return &Error{Where: name, Err: invalidf("%s", te.Errors[0])}
		}
		return &Error{Where: name, Err: invalidf("not valid YAML: %v", err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty file
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" { // "---" alone
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return &Error{Where: fmt.Sprintf("%s:%d", name, root.Line),
			Err: invalidf("the file must map flag names to values, e.g. \"brokers: 3\"")}
	}
	scratch := *in
	scratch.where, scratch.raw = copyMap(in.where), copyMap(in.raw)
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		at := fmt.Sprintf("%s:%d", name, k.Line)
		if k.Kind != yaml.ScalarNode {
			return &Error{Where: at, Err: invalidf("a key must be a flag name, e.g. brokers")}
		}
		where := at + ": " + k.Value
		if _, ok := Lookup(k.Value); !ok {
			return &Error{Where: at, Err: invalidf("unknown key %q%s", k.Value, suggest(k.Value))}
		}
		if first, dup := seen[k.Value]; dup {
			return &Error{Where: where, Err: invalidf("given twice (first on line %d)", first)}
		}
		seen[k.Value] = k.Line
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return &Error{Where: where, Err: invalidf("needs a single value, e.g. %s: %s", k.Value, example(k.Value))}
		}
		if err := scratch.Set(k.Value, v.Value, where); err != nil {
			return err
		}
	}
	*in = scratch
	return nil
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// example gives a sample value for key.
func example(key string) string {
	k, _ := Lookup(key)
	switch k.Arg {
	case "RATE":
		return "100MB/s"
	case "BYTES":
		return "1000"
	case "DURATION":
		return "10ms"
	case "FORMAT":
		return "v2"
	case "FRACTION":
		return "0.8"
	case "COUNT":
		return "1.5M"
	}
	return "3"
}
