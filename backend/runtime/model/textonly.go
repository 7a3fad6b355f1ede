package model

import (
	"context"
	"fmt"
)

// TextOnly wraps a provider whose model takes no images (a spec marked
// "#text-only"): every image part of a request, in user messages and tool
// results alike, is replaced by a text note saying a picture was left out,
// so the model knows it exists and the API never sees one.
func TextOnly(p Provider) Provider { return textOnly{p} }

type textOnly struct{ Provider }

func (t textOnly) Stream(ctx context.Context, req Request) (Stream, error) {
	return t.Provider.Stream(ctx, StripImages(req))
}

// StripImages returns req with every image part replaced by a text note.
// The request's own slices are not modified.
func StripImages(req Request) Request {
	msgs := make([]Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Content = stripParts(m.Content)
		if len(m.Results) > 0 {
			rs := make([]ToolResult, len(m.Results))
			for j, r := range m.Results {
				r.Content = stripParts(r.Content)
				rs[j] = r
			}
			m.Results = rs
		}
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

func stripParts(parts []Part) []Part {
	n := 0
	for _, p := range parts {
		if p.Type == PartImage {
			n++
		}
	}
	if n == 0 {
		return parts
	}
	out := make([]Part, 0, len(parts))
	for _, p := range parts {
		if p.Type == PartImage {
			p = TextPart(fmt.Sprintf("\n[a %s image was left out: this model takes text only]", p.MimeType))
		}
		out = append(out, p)
	}
	return out
}
