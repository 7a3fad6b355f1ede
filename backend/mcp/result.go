package mcp

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/backend/tools"
)

// mapResult turns a server's result into what the model reads, spending at
// most limit bytes on text, image data and structured content together.
// What does not fit is cut or replaced by a note saying how much was left
// out, so the model knows the result is partial.
func mapResult(res *sdk.CallToolResult, limit int) tools.Result {
	b := budget{left: limit}
	out := tools.Result{IsError: res.IsError}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			out.Content = append(out.Content, tools.Content{Type: "text", Text: b.text(c.Text)})
		case *sdk.ImageContent:
			out.Content = append(out.Content, b.image(c.MIMEType, c.Data))
		case *sdk.AudioContent:
			out.Content = append(out.Content, tools.Content{Type: "text",
				Text: b.text(fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))})
		case *sdk.ResourceLink:
			out.Content = append(out.Content, tools.Content{Type: "text",
				Text: b.text(fmt.Sprintf("[resource link] %s <%s> %s", c.Name, c.URI, c.MIMEType))})
		case *sdk.EmbeddedResource:
			out.Content = append(out.Content, b.resource(c.Resource))
		default:
			out.Content = append(out.Content, tools.Content{Type: "text", Text: b.text(fmt.Sprintf("[unsupported content %T]", c))})
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if len(data) <= b.left {
				b.left -= len(data)
				out.Structured = data
			} else {
				out.Content = append(out.Content, tools.Content{Type: "text",
					Text: fmt.Sprintf("[structured content of %d bytes left out: over the %d-byte result limit]", len(data), limit)})
			}
		}
	}
	if len(out.Content) == 0 {
		out.Content = []tools.Content{{Type: "text", Text: ""}}
	}
	return out
}

type budget struct{ left int }

func (b *budget) text(s string) string {
	if len(s) <= b.left {
		b.left -= len(s)
		return s
	}
	cut := max(b.left, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	b.left = 0
	return s[:cut] + fmt.Sprintf("\n[truncated: %d of %d bytes shown; MCP results are capped]", cut, len(s))
}

func (b *budget) image(mime string, data []byte) tools.Content {
	if len(data) <= b.left {
		b.left -= len(data)
		return tools.Content{Type: "image", MimeType: mime, Data: data}
	}
	return tools.Content{Type: "text", Text: fmt.Sprintf("[image %s of %d bytes left out: over the result limit]", mime, len(data))}
}

func (b *budget) resource(r *sdk.ResourceContents) tools.Content {
	if r == nil {
		return tools.Content{Type: "text", Text: "[empty resource]"}
	}
	if r.Blob != nil {
		if len(r.MIMEType) > 6 && r.MIMEType[:6] == "image/" {
			return b.image(r.MIMEType, r.Blob)
		}
		return tools.Content{Type: "text", Text: b.text(fmt.Sprintf("[binary resource <%s> %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))}
	}
	return tools.Content{Type: "text", Text: b.text(fmt.Sprintf("[resource <%s>]\n%s", r.URI, r.Text))}
}
