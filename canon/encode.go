package canon

import "fmt"

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
