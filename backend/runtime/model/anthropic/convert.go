package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// buildParams turns a provider-neutral request into Messages API params.
// System messages become the system prompt; tool messages become a user turn
// of tool_result blocks; consecutive turns of one role are merged because the
// API expects alternation.
func buildParams(modelName string, maxTokens int64, req model.Request, names *model.NameMap) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: modelName, MaxTokens: maxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	for _, t := range req.Tools {
		tp, err := toolParam(t, names)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	var (
		role   string
		blocks []sdk.ContentBlockParamUnion
	)
	flush := func() {
		if len(blocks) == 0 {
			return
		}
		if role == "assistant" {
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		}
		blocks = nil
	}
	for i, m := range req.Messages {
		var (
			r   string
			add []sdk.ContentBlockParamUnion
			err error
		)
		switch m.Role {
		case model.RoleSystem:
			if t := m.Text(); t != "" {
				p.System = append(p.System, sdk.TextBlockParam{Text: t})
			}
			continue
		case model.RoleUser:
			r = "user"
			add, err = contentBlocks(m.Content)
		case model.RoleAssistant:
			r = "assistant"
			add, err = assistantBlocks(m, names)
		case model.RoleTool:
			r = "user"
			add, err = resultBlocks(m.Results)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return p, fmt.Errorf("%w: message %d: %w", model.ErrBadRequest, i, err)
		}
		if r != role {
			flush()
			role = r
		}
		blocks = append(blocks, add...)
	}
	flush()
	return p, nil
}

func toolParam(t model.ToolSpec, names *model.NameMap) (*sdk.ToolParam, error) {
	schema := map[string]any{}
	if len(t.Schema) > 0 {
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return nil, fmt.Errorf("%w: tool %q: schema: %w", model.ErrBadRequest, t.Name, err)
		}
	}
	in := sdk.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			in.Properties = v
		case "required":
			req, _ := v.([]any)
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		default:
			in.ExtraFields[k] = v
		}
	}
	if in.Properties == nil {
		in.Properties = map[string]any{}
	}
	tp := &sdk.ToolParam{Name: names.Wire(t.Name), InputSchema: in}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	return tp, nil
}

func contentBlocks(parts []model.Part) ([]sdk.ContentBlockParamUnion, error) {
	var out []sdk.ContentBlockParamUnion
	for _, p := range parts {
		switch p.Type {
		case model.PartText:
			if p.Text != "" {
				out = append(out, sdk.NewTextBlock(p.Text))
			}
		case model.PartImage:
			img, err := imageBlock(p)
			if err != nil {
				return nil, err
			}
			out = append(out, sdk.ContentBlockParamUnion{OfImage: img})
		default:
			return nil, fmt.Errorf("unknown part type %q", p.Type)
		}
	}
	return out, nil
}

func imageBlock(p model.Part) (*sdk.ImageBlockParam, error) {
	switch p.MimeType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return nil, fmt.Errorf("image type %q not accepted (png, jpeg, gif, webp)", p.MimeType)
	}
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      base64.StdEncoding.EncodeToString(p.Data),
		MediaType: sdk.Base64ImageSourceMediaType(p.MimeType),
	}}}, nil
}

func assistantBlocks(m model.Message, names *model.NameMap) ([]sdk.ContentBlockParamUnion, error) {
	out, err := contentBlocks(m.Content)
	if err != nil {
		return nil, err
	}
	for _, c := range m.ToolCalls {
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		out = append(out, sdk.NewToolUseBlock(c.ID, args, names.Wire(c.Name)))
	}
	return out, nil
}

func resultBlocks(results []model.ToolResult) ([]sdk.ContentBlockParamUnion, error) {
	var out []sdk.ContentBlockParamUnion
	for _, r := range results {
		b := &sdk.ToolResultBlockParam{ToolUseID: r.CallID}
		if r.IsError {
			b.IsError = sdk.Bool(true)
		}
		for _, p := range r.Content {
			switch p.Type {
			case model.PartText:
				if p.Text != "" {
					b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
				}
			case model.PartImage:
				img, err := imageBlock(p)
				if err != nil {
					return nil, fmt.Errorf("tool result %s: %w", r.CallID, err)
				}
				b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfImage: img})
			default:
				return nil, fmt.Errorf("tool result %s: unknown part type %q", r.CallID, p.Type)
			}
		}
		out = append(out, sdk.ContentBlockParamUnion{OfToolResult: b})
	}
	return out, nil
}
