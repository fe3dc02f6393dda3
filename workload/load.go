package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/plimsoll/plimsoll/internal/smallfile"
	"github.com/plimsoll/plimsoll/kafkaprops"
	"gopkg.in/yaml.v3"
)

// maxFileSize bounds a workload or driver YAML; real ones are a few hundred bytes.
const maxFileSize = 1 << 20

// Load reads a workload file: plimsoll's own YAML or an OMB workload YAML, told apart by their
// keys (OMB's are camelCase: partitionsPerTopic, producerRate, ...). Relative paths in the file
// (payload file:, producer.config) are taken from the file's directory. The spec is validated;
// an unknown key is reported as FILE:LINE: unknown field "x" (known: ...).
func Load(path string) (Spec, error) {
	data, err := readFile(path)
	if err != nil {
		return Spec{}, err
	}
	return load(data, path, filepath.Dir(path), "", nil)
}

// LoadOMB reads an OMB workload YAML and, if driverPath is not "", an OMB Kafka driver YAML whose
// replicationFactor, topicConfig, commonConfig, producerConfig and consumerConfig it applies.
func LoadOMB(workloadPath, driverPath string) (Spec, error) {
	data, err := readFile(workloadPath)
	if err != nil {
		return Spec{}, err
	}
	var driver []byte
	if driverPath != "" {
		if driver, err = readFile(driverPath); err != nil {
			return Spec{}, err
		}
	}
	return load(data, workloadPath, filepath.Dir(workloadPath), driverPath, driver)
}

func readFile(path string) ([]byte, error) {
	data, err := smallfile.Read(path, maxFileSize)
	switch {
	case errors.Is(err, smallfile.ErrTooLarge):
		return nil, &FieldError{Pos: path, Msg: fmt.Sprintf("is over %d bytes; a workload file is a short YAML mapping", maxFileSize)}
	case err != nil:
		return nil, &FieldError{Pos: path, Msg: fmt.Sprintf("cannot read: %v", unwrapPathErr(err)), Err: err}
	}
	return data, nil
}

// load parses a workload (and optional driver) from bytes; name and dir place errors and
// relative paths. It is what Load, LoadOMB and the fuzz target share.
func load(data []byte, name, dir, driverName string, driver []byte) (Spec, error) {
	s, err := loadUnordered(data, name, dir, driverName, driver)
	if err != nil {
		return Spec{}, inLineOrder(err)
	}
	return s, nil
}

func loadUnordered(data []byte, name, dir, driverName string, driver []byte) (Spec, error) {
	root, err := decodeYAML(data, name)
	if err != nil {
		return Spec{}, err
	}
	pairs, err := mappingPairs(root, name)
	if err != nil {
		return Spec{}, err
	}
	var s Spec
	switch detect(pairs) {
	case kindDriver:
		return Spec{}, &FieldError{Pos: name, Msg: "this is an OMB driver file (it has driverClass); give it with --driver and the OMB workload YAML with --workload"}
	case kindOMB:
		s, err = loadOMB(pairs, name, dir)
	default:
		if driver != nil {
			return Spec{}, &FieldError{Pos: name, Msg: "is a plimsoll workload; --driver applies only to OMB workload files (set replication and properties in this file instead)"}
		}
		s, err = loadPlimsoll(pairs, name, dir)
	}
	if err != nil {
		return Spec{}, err
	}
	if driver != nil {
		if err := s.applyDriver(driver, driverName); err != nil {
			return Spec{}, err
		}
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

type fileKind int

const (
	kindPlimsoll fileKind = iota
	kindOMB
	kindDriver
)

// detect tells the formats apart by their keys: any OMB-only key makes an OMB workload.
func detect(pairs []pair) fileKind {
	for _, p := range pairs {
		if p.key == "driverClass" {
			return kindDriver
		}
	}
	for _, p := range pairs {
		if _, ok := ombFields[p.key]; ok && p.key != "name" && p.key != "topics" {
			return kindOMB
		}
		if _, ok := ombForkFields[p.key]; ok {
			return kindOMB
		}
	}
	return kindPlimsoll
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// decodeYAML parses one YAML document and returns its top-level mapping node.
func decodeYAML(data []byte, name string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &FieldError{Pos: name, Msg: "is empty; a workload file is a YAML mapping such as `rate: 1000`"}
		}
		return nil, yamlErr(err, name)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlErr(err, name)
		}
		return nil, &FieldError{Pos: fmt.Sprintf("%s:%d", name, more.Line), Msg: "a second YAML document; a workload file holds one (remove the ---)"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, &FieldError{Pos: name, Msg: "is empty; a workload file is a YAML mapping such as `rate: 1000`"}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &FieldError{Pos: fmt.Sprintf("%s:%d", name, root.Line), Msg: "the file must be a YAML mapping of fields, e.g. `rate: 1000`"}
	}
	return root, nil
}

func yamlErr(err error, name string) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := name
	if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
		pos, msg = name+":"+m[1], m[2]
	}
	return &FieldError{Pos: pos, Msg: "not valid YAML: " + msg, Err: err}
}

// pair is one key: value of a mapping, with the key's line.
type pair struct {
	key string
	pos string
	val *yaml.Node
}

// mappingPairs lists a mapping's pairs, refusing duplicate and non-scalar keys.
func mappingPairs(m *yaml.Node, name string) ([]pair, error) {
	m = deref(m)
	if m.Kind != yaml.MappingNode {
		return nil, &FieldError{Pos: fmt.Sprintf("%s:%d", name, m.Line), Msg: "expected a mapping of key: value"}
	}
	seen := make(map[string]int, len(m.Content)/2)
	out := make([]pair, 0, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := deref(m.Content[i])
		pos := fmt.Sprintf("%s:%d", name, k.Line)
		if k.Kind != yaml.ScalarNode {
			return nil, &FieldError{Pos: pos, Msg: "a key must be a plain name"}
		}
		if first, dup := seen[k.Value]; dup {
			return nil, &FieldError{Pos: pos, Msg: fmt.Sprintf("%q is given twice (first at line %d); keep one", k.Value, first)}
		}
		seen[k.Value] = k.Line
		out = append(out, pair{key: k.Value, pos: pos, val: m.Content[i+1]})
	}
	return out, nil
}

// deref follows aliases (&anchor / *alias) to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// scalarValue returns a scalar's text; a mapping, a list or an empty value is an error.
func scalarValue(n *yaml.Node) (string, error) {
	n = deref(n)
	switch {
	case n.Kind != yaml.ScalarNode:
		return "", fmt.Errorf("expected a single value, not a %s", nodeKind(n))
	case n.Tag == "!!null":
		return "", fmt.Errorf("has no value")
	}
	return n.Value, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// unknownKey reports a key plimsoll does not know, with the known ones and the closest.
// hint, when not "", replaces the did-you-mean found by spelling.
func unknownKey(p pair, known []string, hint string) error {
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	msg := fmt.Sprintf("unknown field %q (known: %s)", p.key, strings.Join(sorted, ", "))
	if hint != "" {
		msg += "; " + hint
	} else if s := kafkaprops.Closest(strings.ToLower(p.key), sorted, kafkaprops.MaxEdits(p.key)); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return &FieldError{Pos: p.pos, Msg: msg, Err: ErrUnknownField}
}

// loadPlimsoll reads plimsoll's own YAML: the flag names as keys, property maps for the
// repeatable property flags.
func loadPlimsoll(pairs []pair, name, dir string) (Spec, error) {
	s := Default()
	s.Source = name
	var known []string
	for _, d := range fieldDefs {
		known = append(known, d.YAML)
	}
	var errs []error
	failed := map[string]bool{}
	for _, p := range pairs {
		d, ok := lookupField(p.key)
		if !ok || d.YAML != p.key {
			hint := ""
			if ok {
				hint = fmt.Sprintf("%q is the flag; the YAML key is %q", p.key, d.YAML)
			}
			errs = append(errs, unknownKey(p, known, hint))
			continue
		}
		if d.Repeatable {
			errs = append(errs, s.setPropMap(d, p, name)...)
			continue
		}
		v, err := scalarValue(p.val)
		if err != nil {
			errs = append(errs, &FieldError{Pos: p.pos, Field: p.key, Flag: d.Flag, Msg: err.Error() + "; give e.g. " + d.YAML + ": " + example(d)})
			failed[d.Flag] = true
			continue
		}
		if err := s.setField(d, v, dir, p.pos, p.key); err != nil {
			errs = append(errs, err)
			failed[d.Flag] = true
		}
	}
	if len(errs) > 0 {
		// Report the other fields' problems too, so one edit fixes the file.
		errs = append(errs, validationErrs(s, failed)...)
	}
	return s, kafkaprops.JoinErrors(errs)
}

// validationErrs returns Validate's errors, leaving out fields that already failed to parse
// (their value is a default, so an error about it would mislead).
func validationErrs(s Spec, failed map[string]bool) []error {
	var out []error
	for _, e := range flatten([]error{s.Validate()}) {
		if fe, ok := e.(*FieldError); ok && (failed[fe.Flag] || fe.Flag == "message-size" && failed["payload"]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// setPropMap applies a YAML mapping of Kafka properties (producer-props: {acks: all}).
func (s *Spec) setPropMap(d fieldDef, p pair, name string) []error {
	role := map[string]kafkaprops.Role{"producer-prop": kafkaprops.RoleProducer, "consumer-prop": kafkaprops.RoleConsumer,
		"common-prop": kafkaprops.RoleCommon, "topic-config": kafkaprops.RoleTopic}[d.Flag]
	v := deref(p.val)
	if v.Kind != yaml.MappingNode {
		return []error{&FieldError{Pos: p.pos, Field: p.key, Msg: fmt.Sprintf("expected a mapping of Kafka properties, e.g. `%s: {%s: ...}`", p.key, strings.SplitN(role.Example(), ",", 2)[0])}}
	}
	kvs, err := mappingPairs(v, name)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, kv := range kvs {
		val, err := scalarValue(kv.val)
		if err != nil {
			hint := "; Kafka property names are dotted keys, e.g. linger.ms: 5"
			errs = append(errs, &FieldError{Pos: kv.pos, Field: kv.key, Flag: d.Flag, Msg: err.Error() + hint})
			continue
		}
		if err := s.addProp(role, kv.key, val, kv.pos, false); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func example(d fieldDef) string {
	switch d.Flag {
	case "rate":
		return "50k"
	case "duration":
		return "5m"
	case "payload":
		return "random"
	case "keys":
		return "none"
	case "backlog":
		return "1GB"
	case "name":
		return "steady-50k"
	}
	if d.Default != "" {
		return d.Default
	}
	return "..."
}
