package allocation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
)

// The journal's format. Its first line is a header naming the last op
// the snapshot it follows includes:
//
//	hpcsched-allocation-journal 2 after SEQ
//
// and every op is one line "LENGTH CRC JSON": the JSON's length in bytes
// (decimal) and its CRC-32C (8 hex digits), so a record cut short, cut
// off or changed is found and named (file, offset, record) rather than
// replayed or silently dropped. Lines starting with "{" are version 1
// records (no length or checksum), read only from a journal without a
// header, as stores before version 2 wrote them.
const journalMagic = "hpcsched-allocation-journal"

// castagnoli is the CRC-32C table. The standard library makes it once, on
// the first call, so a program that imports the package but never writes
// or reads a file pays nothing for it at start-up.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// JournalError is damage found in a journal: the file, the byte offset
// and number (1 for the first op) of the record, and what is wrong. It
// matches ErrFile. `hpcsched alloc repair` keeps the records before it.
type JournalError struct {
	File   string
	Offset int64
	Record int
	Reason string
}

// Error names the file, record and offset.
func (e *JournalError) Error() string {
	return fmt.Sprintf("allocation: journal %s: record %d at byte offset %d: %s", e.File, e.Record, e.Offset, e.Reason)
}

// Unwrap makes a *JournalError match ErrFile.
func (e *JournalError) Unwrap() error { return ErrFile }

// encodeRecord is one journal line for o.
func encodeRecord(o *op) ([]byte, error) {
	body, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return encodeLine(body), nil
}

func journalHeader(after int64) []byte {
	return fmt.Appendf(nil, "%s 2 after %d\n", journalMagic, after)
}

// parseHeader reads the header line; ok is false for a version 1 journal
// (no header).
func parseHeader(line []byte) (after int64, ok bool, err error) {
	if !bytes.HasPrefix(line, []byte(journalMagic)) {
		return 0, false, nil
	}
	var version int
	// Version 1 had no header: a header naming it (or less) is damage.
	if _, err := fmt.Sscanf(string(line), journalMagic+" %d after %d", &version, &after); err != nil || version < 2 {
		return 0, false, fmt.Errorf("header %q is not %q", line, journalMagic+" 2 after SEQ")
	}
	if version > 2 {
		return 0, false, &versionError{version: version, reads: "version 2 only"}
	}
	return after, true, nil
}

// versionError is a whole header of a format version this package does not
// read: not damage, so RepairFile must not set the file aside or advise a
// backup as if it were.
type versionError struct {
	version int
	reads   string
}

func (e *versionError) Error() string {
	return fmt.Sprintf("format version %d, but this hpcsched reads %s (use the hpcsched that wrote it)", e.version, e.reads)
}

// decodeRecord checks and decodes one line (without its newline).
func decodeRecord(line []byte, legacy bool) (op, error) {
	var o op
	body := line
	if !legacy {
		var err error
		if body, err = checkLine(line); err != nil {
			return o, err
		}
	} else if len(body) == 0 || body[0] != '{' {
		return o, fmt.Errorf("not a version 1 record")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("JSON: %v", err)
	}
	return o, nil
}

// encodeLine frames body as a "LENGTH CRC JSON" line.
func encodeLine(body []byte) []byte {
	line := fmt.Appendf(nil, "%d %08x ", len(body), crc32.Checksum(body, castagnoli()))
	line = append(line, body...)
	return append(line, '\n')
}

// checkLine checks a "LENGTH CRC JSON" line (without its newline) and
// returns its JSON.
func checkLine(line []byte) ([]byte, error) {
	lenText, rest, ok1 := bytes.Cut(line, []byte(" "))
	crcText, rest, ok2 := bytes.Cut(rest, []byte(" "))
	n, err := strconv.Atoi(string(lenText))
	if !ok1 || !ok2 || err != nil || len(crcText) != 8 {
		return nil, fmt.Errorf("not a \"LENGTH CRC JSON\" record")
	}
	if n != len(rest) {
		return nil, fmt.Errorf("length %d, but %d bytes follow", n, len(rest))
	}
	want, err := strconv.ParseUint(string(crcText), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("checksum %q is not hexadecimal", crcText)
	}
	if got := crc32.Checksum(rest, castagnoli()); got != uint32(want) {
		return nil, fmt.Errorf("checksum %08x, the record's bytes give %08x: it was changed", want, got)
	}
	return rest, nil
}
