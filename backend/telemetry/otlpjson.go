package telemetry

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Copy is one Warden record as a collector wrote it: the chain fields
// verify --against compares with the local log.
type Copy struct {
	SessionID    string `json:"session_id"`
	Seq          int64  `json:"seq"` // warden.chain.seq: the event's version in its session
	Hash         string `json:"hash"`
	PrevExported int64  `json:"prev_exported"`
	EventSeq     int64  `json:"event_seq"`
	Kind         string `json:"kind"`
	Class        string `json:"class"`
	Layer        string `json:"layer,omitempty"`
	LayerDetail  string `json:"layer_detail,omitempty"` // warden.decision.layer_detail: which rule, grant, answerer
	Decision     string `json:"decision,omitempty"`
	CallID       string `json:"call_id,omitempty"`
	Line         int    `json:"line"` // of the file, 1-based
}

// ReadCopies reads what a collector wrote: OTLP JSON as the Collector's
// file exporter writes it (one ExportLogsServiceRequest per line), or any
// concatenation of such documents. Records without warden.record (other
// programs' logs) are skipped and counted. A document that is not OTLP JSON
// is an error naming its line.
func ReadCopies(r io.Reader) (copies []Copy, others int, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	line := 1
	for {
		// Skip whitespace, counting lines, to report where a document starts.
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return copies, others, nil
		}
		if err != nil {
			return copies, others, err
		}
		switch b {
		case '\n':
			line++
			continue
		case ' ', '\t', '\r':
			continue
		}
		br.UnreadByte()
		dec := json.NewDecoder(br)
		var doc otlpLogs
		if err := dec.Decode(&doc); err != nil {
			return copies, others, fmt.Errorf("telemetry: line %d: not OTLP JSON logs: %w", line, err)
		}
		for _, rl := range doc.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					c, ok, err := copyOf(lr.Attributes)
					if err != nil {
						return copies, others, fmt.Errorf("telemetry: line %d: %w", line, err)
					}
					if !ok {
						others++
						continue
					}
					c.Line = line
					copies = append(copies, c)
				}
			}
		}
		// The decoder read ahead; hand what it buffered back to the reader.
		// (The newline after the document is counted by the skip above.)
		rest := dec.Buffered()
		br = bufio.NewReaderSize(io.MultiReader(rest, br), 1<<16)
	}
}

// otlpLogs is the part of ExportLogsServiceRequest (OTLP JSON encoding)
// this reads.
type otlpLogs struct {
	ResourceLogs []struct {
		ScopeLogs []struct {
			LogRecords []struct {
				Attributes []otlpKV `json:"attributes"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an AnyValue; OTLP JSON writes int64 as a string, some
// writers as a number.
type otlpValue struct {
	String *string          `json:"stringValue"`
	Int    *json.RawMessage `json:"intValue"`
}

func (v otlpValue) str() string {
	if v.String != nil {
		return *v.String
	}
	return ""
}

func (v otlpValue) int() (int64, error) {
	if v.Int == nil {
		return 0, errors.New("not an integer")
	}
	raw := []byte(*v.Int)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strconv.ParseInt(s, 10, 64)
	}
	var n int64
	err := json.Unmarshal(raw, &n)
	return n, err
}

func copyOf(kvs []otlpKV) (Copy, bool, error) {
	var c Copy
	var has bool
	for _, kv := range kvs {
		var err error
		switch kv.Key {
		case AttrRecord:
			c.Class, has = kv.Value.str(), true
		case AttrSession:
			c.SessionID = kv.Value.str()
		case AttrChainHash:
			c.Hash = kv.Value.str()
		case AttrEventKind:
			c.Kind = kv.Value.str()
		case AttrLayer:
			c.Layer = kv.Value.str()
		case AttrLayerDetail:
			c.LayerDetail = kv.Value.str()
		case "warden.decision":
			c.Decision = kv.Value.str()
		case "warden.call.id":
			c.CallID = kv.Value.str()
		case AttrChainSeq:
			c.Seq, err = kv.Value.int()
		case AttrPrevExported:
			c.PrevExported, err = kv.Value.int()
		case AttrEventSeq:
			c.EventSeq, err = kv.Value.int()
		}
		if err != nil {
			return c, false, fmt.Errorf("attribute %s: %w", kv.Key, err)
		}
	}
	if !has {
		return c, false, nil
	}
	if c.SessionID == "" || c.Seq < 1 || c.Hash == "" {
		return c, false, fmt.Errorf("a warden record without %s, %s or %s", AttrSession, AttrChainSeq, AttrChainHash)
	}
	return c, true, nil
}
