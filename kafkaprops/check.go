package kafkaprops

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Check reports unknown property names (with the closest known name) and values of the wrong
// type as errors naming the property and its origin. Properties that belong to another client
// (fetch.min.bytes in producer properties) and unknown members of the ssl./sasl. families are
// returned as warnings: Kafka's own clients accept and ignore them. Check says nothing about
// whether plimsoll's client can honour a property: Admit and Resolve do.
func (p Props) Check(role Role) (warnings []string, err error) {
	var errs []error
	for prop := range p.All() {
		w, e := Check(role, prop)
		if w != "" {
			warnings = append(warnings, w)
		}
		if e != nil {
			errs = append(errs, e)
		}
	}
	return warnings, JoinErrors(errs)
}

// Check checks one property's name and value for role; see Props.Check.
func Check(role Role, prop Prop) (warning string, err error) {
	fe := func(msg string, kind error) error {
		return &Error{Pos: prop.Origin, Name: prop.Key, Flag: role.Flag(), Msg: msg, Kind: kind}
	}
	spec, ok := role.lookup(prop.Key)
	if !ok {
		return checkUnknown(role, prop, fe)
	}
	if err := checkValue(prop.Key, prop.Value, spec); err != nil {
		return "", fe(err.Error(), ErrBadProperty)
	}
	if !role.wants(spec) {
		other := "consumer"
		if spec.Scope&ScopeProducer != 0 {
			other = "producer"
		}
		return fmt.Sprintf("%s: %s is a %s property; %ss ignore it (move it to %s-props)", whereIn(prop, role), prop.Key, other, role, other), nil
	}
	return "", nil
}

// checkUnknown explains a name that is not among role's properties.
func checkUnknown(role Role, prop Prop, fe func(string, error) error) (string, error) {
	if role == RoleTopic {
		if _, client := Lookup(prop.Key); client {
			return "", fe("is a client property, not a topic config; move it to producer-props or consumer-props", ErrUnknownProperty)
		}
	} else if _, topic := LookupTopic(prop.Key); topic {
		return "", fe(fmt.Sprintf("is a topic config, not a %s property; move it to topic-config (--topic-config)", role), ErrUnknownProperty)
	}
	if s := suggest(prop.Key, role); s != "" {
		return "", fe(fmt.Sprintf("unknown %s property; did you mean %q?", role, s), ErrUnknownProperty)
	}
	if role != RoleTopic && passThrough(prop.Key) {
		return fmt.Sprintf("%s: %s is not a Kafka %s property plimsoll knows; passed on unchecked", whereIn(prop, role), prop.Key, role), nil
	}
	return "", fe(fmt.Sprintf("unknown %s property (plimsoll takes Kafka's own %s config names, e.g. %s)", role, role, role.Example()), ErrUnknownProperty)
}

func passThrough(key string) bool {
	for _, pre := range passThroughPrefixes {
		if strings.HasPrefix(key, pre) {
			return true
		}
	}
	return false
}

// whereIn places a property for a warning: its origin, or the section it sits in.
func whereIn(p Prop, r Role) string {
	if p.Origin == "" {
		return r.Section()
	}
	return p.Origin
}

// where places a property for a message: its origin, or its name.
func where(p Prop) string {
	if p.Origin == "" {
		return p.Key
	}
	return p.Origin
}

// checkValue checks value against the config's type. Secret values never appear in messages.
func checkValue(key, value string, s Def) error {
	show := strconv.Quote(value)
	if s.Kind == KindPassword || IsSecret(key) {
		show = "the value"
	}
	v := strings.TrimSpace(value)
	switch s.Kind {
	case KindInt, KindLong, KindShort:
		return checkNumber(v, show, s)
	case KindDouble:
		if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s is not a number", show)
		}
	case KindBool:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return fmt.Errorf("%s is not true or false", show)
		}
	case KindEnum:
		if _, ok := enumValue(v, s); !ok {
			return fmt.Errorf("%s is not valid; use one of %s", show, strings.Join(s.Values, ", "))
		}
	}
	return checkSpecial(key, v, show)
}

var (
	javaBits  = map[Kind]int{KindInt: 32, KindLong: 64, KindShort: 16}
	javaName  = map[Kind]string{KindInt: "int", KindLong: "long", KindShort: "short"}
	javaWords = map[Kind]string{KindInt: "an integer", KindLong: "a whole number", KindShort: "a small integer"}
)

func checkNumber(v, show string, s Def) error {
	n, err := strconv.ParseInt(v, 10, javaBits[s.Kind])
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return fmt.Errorf("%s is out of range (Kafka reads it as a Java %s)", show, javaName[s.Kind])
		}
		return fmt.Errorf("%s is not %s", show, javaWords[s.Kind])
	}
	if s.Min != NoMin && n < s.Min {
		return fmt.Errorf("%d is below the minimum, %d", n, s.Min)
	}
	if s.Max != 0 && n > s.Max {
		return fmt.Errorf("%d is above the maximum, %d", n, s.Max)
	}
	return nil
}

// enumValue returns the canonical spelling of v among s.Values.
func enumValue(v string, s Def) (string, bool) {
	for _, ok := range s.Values {
		if v == ok || s.Fold && strings.EqualFold(v, ok) {
			return ok, true
		}
	}
	return "", false
}

// checkSpecial checks the configs whose validators are not a plain type.
func checkSpecial(key, v, show string) error {
	switch key {
	case "auto.offset.reset":
		if v != "earliest" && v != "latest" && v != "none" && !strings.HasPrefix(v, "by_duration:") {
			return fmt.Errorf("%s is not valid; use earliest, latest, none or by_duration:PnDTnHnMn.nS", show)
		}
	case "cleanup.policy":
		for _, part := range strings.Split(v, ",") {
			if p := strings.TrimSpace(part); p != "delete" && p != "compact" {
				return fmt.Errorf("%s is not valid; use delete, compact or delete,compact", show)
			}
		}
	}
	return nil
}
