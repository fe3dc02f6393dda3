// Package results is plimsoll's append-only store of what it measured: one JSON object per line
// (JSONL) in a file such as results.jsonl, each line a Record with a kind ("search", "trial",
// "boundary", "run", ...), the schema version, the time it was written, an optional id and the
// payload.
//
// The store is built to survive being killed. Append writes each record as one line with a
// single write(2) on a file opened with O_APPEND and fsyncs before returning, so a finished record
// is on disk and a kill can tear at most the line being written. Load skips such a torn last line
// with a warning and rejects damage anywhere else with the file and line, because a corrupt line
// in the middle means the file was edited or the disk lied, and silently dropping a measured trial
// would be worse than stopping. Opening a Writer repairs a torn tail first, so appending after a
// crash never glues a new record onto half of an old one.
//
// The package knows nothing about what the payloads mean; limit, run and compare each define
// their own kinds and decode Data with Record.Decode or the typed helper Decode.
package results
