package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/warden-dev/warden/backend/runtime/model"
)

// buildParams turns a provider-neutral request into chat-completions params.
func buildParams(modelName string, maxTokens int64, req model.Request, names *model.NameMap) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(modelName),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	switch {
	case req.MaxTokens > 0:
		p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	case maxTokens > 0:
		p.MaxCompletionTokens = sdk.Int(maxTokens)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: names.Wire(t.Name), Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{}}}
		if len(t.Schema) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(t.Schema, &schema); err != nil {
				return p, fmt.Errorf("%w: tool %q: schema: %w", model.ErrBadRequest, t.Name, err)
			}
			fn.Parameters = schema
		}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	for i, m := range req.Messages {
		msgs, err := convertMessage(m, names)
		if err != nil {
			return p, fmt.Errorf("%w: message %d: %w", model.ErrBadRequest, i, err)
		}
		p.Messages = append(p.Messages, msgs...)
	}
	return p, nil
}

func convertMessage(m model.Message, names *model.NameMap) ([]sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case model.RoleSystem:
		return []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(m.Text())}, nil
	case model.RoleUser:
		if !hasImage(m.Content) {
			return []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage(m.Text())}, nil
		}
		parts, err := userParts(m.Content)
		if err != nil {
			return nil, err
		}
		return []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage(parts)}, nil
	case model.RoleAssistant:
		var a sdk.ChatCompletionAssistantMessageParam
		// Content may be left out only when tool calls stand in for it.
		if t := m.Text(); t != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = sdk.String(t)
		}
		for _, c := range m.ToolCalls {
			args := string(c.Args)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: names.Wire(c.Name), Arguments: args},
			}})
		}
		return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
	case model.RoleTool:
		return toolMessages(m.Results)
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

// toolMessages sends one tool message per result. Chat completions accepts
// only text in tool messages, so images follow in one user message.
func toolMessages(results []model.ToolResult) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var (
		out    []sdk.ChatCompletionMessageParamUnion
		images []sdk.ChatCompletionContentPartUnionParam
	)
	for _, r := range results {
		text := model.JoinText(r.Content)
		if r.IsError {
			text = "Error: " + text
		}
		out = append(out, sdk.ToolMessage(text, r.CallID))
		for _, p := range r.Content {
			if p.Type != model.PartImage {
				continue
			}
			if len(images) == 0 {
				images = append(images, sdk.TextContentPart("Images returned by the tool calls above:"))
			}
			img, err := imagePart(p)
			if err != nil {
				return nil, fmt.Errorf("tool result %s: %w", r.CallID, err)
			}
			images = append(images, img)
		}
	}
	if len(images) > 0 {
		out = append(out, sdk.UserMessage(images))
	}
	return out, nil
}

func hasImage(parts []model.Part) bool {
	for _, p := range parts {
		if p.Type == model.PartImage {
			return true
		}
	}
	return false
}

func userParts(parts []model.Part) ([]sdk.ChatCompletionContentPartUnionParam, error) {
	var out []sdk.ChatCompletionContentPartUnionParam
	for _, p := range parts {
		switch p.Type {
		case model.PartText:
			out = append(out, sdk.TextContentPart(p.Text))
		case model.PartImage:
			img, err := imagePart(p)
			if err != nil {
				return nil, err
			}
			out = append(out, img)
		default:
			return nil, fmt.Errorf("unknown part type %q", p.Type)
		}
	}
	return out, nil
}

func imagePart(p model.Part) (sdk.ChatCompletionContentPartUnionParam, error) {
	switch p.MimeType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return sdk.ChatCompletionContentPartUnionParam{}, fmt.Errorf("image type %q not accepted (png, jpeg, gif, webp)", p.MimeType)
	}
	url := "data:" + p.MimeType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}), nil
}
