package kafkaprops

import (
	"fmt"
	"strings"
)

// whyTarget is the reason a security property is refused.
const whyTarget = "security is configured on the target (--tls, --tls-ca, --tls-cert, --tls-key, --sasl-mechanism, --sasl-user), not as a client property"

// Admit checks one property as it is read (from a file, a YAML block or a flag): Check's
// errors, and a refusal when plimsoll's clients cannot honour the property at all (transactions,
// security settings that belong to the target, Java classes), naming the fix. Properties of the
// other client and those plimsoll owns are admitted; Check's warnings and Resolve's notes say
// what becomes of them.
func Admit(role Role, prop Prop) error {
	if _, err := Check(role, prop); err != nil {
		return err
	}
	if why := refusal(role, prop); why != "" {
		return &Error{Pos: prop.Origin, Name: prop.Key, Flag: role.Flag(), Msg: why, Kind: ErrUnknownProperty}
	}
	return nil
}

// refusal says why plimsoll's clients cannot take prop, or "" when they can (or it is not
// theirs). A common property is refused only when every client it applies to refuses it.
func refusal(role Role, prop Prop) string {
	if role == RoleTopic {
		return ""
	}
	d, ok := Lookup(prop.Key)
	if !ok {
		if passThrough(prop.Key) {
			return whyTarget
		}
		return ""
	}
	if role != RoleCommon {
		if !role.wants(d) {
			return ""
		}
		return refusalFor(role, d, prop.Value)
	}
	why := ""
	for _, r := range []Role{RoleProducer, RoleConsumer} {
		if r.wants(d) {
			if why = refusalFor(r, d, prop.Value); why == "" {
				return ""
			}
		}
	}
	return why
}

func refusalFor(role Role, d Def, value string) string {
	switch d.Use {
	case Mapped, Owned:
		return ""
	case Target:
		if d.Name == "security.protocol" && strings.EqualFold(strings.TrimSpace(value), "PLAINTEXT") {
			return ""
		}
		return whyTarget
	}
	if d.Why != "" {
		return d.Why
	}
	return fmt.Sprintf("has no franz-go equivalent in plimsoll; remove it (supported: %s)", supported(role))
}

// supported lists the properties plimsoll's client of role honours.
func supported(role Role) string {
	var names []string
	for _, d := range Defs(role) {
		if d.Use == Mapped {
			names = append(names, d.Name)
		}
	}
	return strings.Join(names, ", ")
}
