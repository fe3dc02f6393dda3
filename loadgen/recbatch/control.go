package recbatch

import "encoding/binary"

// ControlType is the type of a control record, read from its key.
type ControlType int16

// The control records a data partition holds: the markers that end a transaction.
const (
	AbortMarker  ControlType = 0
	CommitMarker ControlType = 1
)

// Control reads a control record's key (a version and a type, two int16s) and returns its type,
// or false if the key is too short to hold one.
func Control(key []byte) (ControlType, bool) {
	if len(key) < 4 {
		return 0, false
	}
	return ControlType(int16(binary.BigEndian.Uint16(key[2:]))), true
}
