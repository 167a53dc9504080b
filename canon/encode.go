package canon

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendValue appends the compact JSON encoding of a decoded value to dst.
// Object members are written in SortedKeys order, so for values whose
// numbers are already canonical the output is the RFC 8785 form. Values of
// types outside the decoded-document model are written as null.
func AppendValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if v {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case string:
		out, err := jsontext.AppendQuote(dst, v)
		if err != nil { // invalid UTF-8 cannot come from Decode
			return append(dst, `""`...)
		}
		return out
	case Number:
		return append(dst, v...)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range SortedKeys(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst, _ = jsontext.AppendQuote(dst, k)
			dst = append(dst, ':')
			dst = AppendValue(dst, v[k])
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// TypeName names the JSON type of a decoded value for error messages: "a
// string", "an object", "null"… Values outside the decoded-document model
// are named by their Go type.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a Go %T", v)
}
