package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// SchemaOf derives the JSON schema of a params struct by reflection. A field
// is required unless its json tag says omitempty; its `desc` tag becomes the
// description. Unknown properties are refused.
func SchemaOf[T any]() json.RawMessage {
	var zero T
	// A schema is maps of strings; marshalling it cannot fail.
	b, _ := json.Marshal(schemaFor(reflect.TypeOf(zero)))
	return b
}

func schemaFor(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return schemaFor(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaFor(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaFor(t.Elem())}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for _, f := range fields(t) {
			s := schemaFor(f.typ)
			if f.desc != "" {
				s["description"] = f.desc
			}
			props[f.name] = s
			if f.required {
				required = append(required, f.name)
			}
		}
		sort.Strings(required)
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	default:
		return map[string]any{}
	}
}

type field struct {
	name     string
	desc     string
	required bool
	typ      reflect.Type
}

func fields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, desc: f.Tag.Get("desc"), required: !strings.Contains(opts, "omitempty"), typ: f.Type})
	}
	return out
}

// decodeArgs parses a call's arguments into a params struct: a JSON object,
// no unknown fields, every required field present and non-null, each of the
// right type. Errors are worded for the model to read and fix its call.
func decodeArgs[T any](raw json.RawMessage) (T, error) {
	var zero, v T
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return zero, errors.New("arguments must be a JSON object")
	}
	for _, f := range fields(reflect.TypeOf(zero)) {
		if val, ok := obj[f.name]; f.required && (!ok || bytes.Equal(bytes.TrimSpace(val), []byte("null"))) {
			return zero, fmt.Errorf("missing required argument %q", f.name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return zero, fmt.Errorf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type), te.Value)
		}
		if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
			return zero, fmt.Errorf("unknown argument %s", strings.TrimPrefix(msg, "json: unknown field "))
		}
		return zero, fmt.Errorf("invalid arguments: %w", err)
	}
	return v, nil
}

func jsonKind(t reflect.Type) string {
	if k, ok := schemaFor(t)["type"].(string); ok {
		return "a JSON " + k
	}
	return t.String()
}

// SchemaMatches checks a hand-written schema against the argument type it
// describes: the same property names as A's JSON fields, no others
// allowed, and every property it requires a field of A. A hand schema
// says more than Go types can (enums, bounds); this keeps it the type's.
func SchemaMatches[A any](schema json.RawMessage) error {
	var s struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
		return errors.New("schema: not an object that refuses unknown properties")
	}
	var zero A
	want := map[string]bool{}
	for _, f := range fields(reflect.TypeOf(zero)) {
		want[f.name] = true
		if _, ok := s.Properties[f.name]; !ok {
			return fmt.Errorf("schema: %s has no property %q", reflect.TypeOf(zero), f.name)
		}
	}
	for p := range s.Properties {
		if !want[p] {
			return fmt.Errorf("schema: property %q is no field of %s", p, reflect.TypeOf(zero))
		}
	}
	for _, r := range s.Required {
		if !want[r] {
			return fmt.Errorf("schema: required %q is no field of %s", r, reflect.TypeOf(zero))
		}
	}
	return nil
}
