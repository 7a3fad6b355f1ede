//go:build tools

package tools

import _ "github.com/wailsapp/wails/v2/cmd/wails"
