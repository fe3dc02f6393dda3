package probe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// WriteJSON writes the series as probe.json has it (JSON indented by one space, a newline at the
// end: what a json.Encoder with SetIndent("", " ") writes of the whole series), one sample at a
// time, so that a spilled series is never held whole.
func (s *Series) WriteJSON(w io.Writer) error {
	if s.Len() == 0 { // "samples": null or [] as the slice has it
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(s)
	}
	head := *s
	head.Samples = nil
	data, err := json.MarshalIndent(&head, "", " ")
	if err != nil {
		return err
	}
	const tail = "null\n}"
	if !bytes.HasSuffix(data, []byte(tail)) {
		return fmt.Errorf("probe: the series' JSON does not end with its samples")
	}
	bw := bufio.NewWriter(w)
	bw.Write(data[:len(data)-len(tail)])
	bw.WriteString("[\n")
	if err := writeSamples(bw, s); err != nil {
		return err
	}
	bw.WriteString("\n ]\n}\n")
	return errors.Join(bw.Flush(), s.Err())
}

// writeSamples writes each sample as an element of the samples array, separated by commas.
func writeSamples(bw *bufio.Writer, s *Series) error {
	first := true
	for x := range s.All() {
		data, err := json.MarshalIndent(x, "  ", " ")
		if err != nil {
			return err
		}
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		bw.WriteString("  ")
		if _, err := bw.Write(data); err != nil {
			return err
		}
	}
	return nil
}
