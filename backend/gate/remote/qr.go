package remote

import (
	"fmt"
	"strings"

	"rsc.io/qr"
)

// quiet is the white border a scanner needs around a code, in modules.
const quiet = 4

// QR encodes url as a QR code (error correction M): an SVG for the window
// (one path, black on white whatever the theme) and rows of half-block
// characters for a terminal (two modules a row, dark on light).
func QR(url string) (svg string, text []string, err error) {
	c, err := qr.Encode(url, qr.M)
	if err != nil {
		return "", nil, fmt.Errorf("remote: QR code: %w", err)
	}
	n := c.Size
	side := n + 2*quiet
	var path strings.Builder
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if c.Black(x, y) {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	svg = fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img" aria-label="QR code of the link">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`, side, side, side, side, path.String())
	black := func(x, y int) bool {
		x, y = x-quiet, y-quiet
		return x >= 0 && y >= 0 && x < n && y < n && c.Black(x, y)
	}
	for y := 0; y < side; y += 2 {
		var row strings.Builder
		for x := 0; x < side; x++ {
			top, bottom := black(x, y), y+1 < side && black(x, y+1)
			switch {
			case top && bottom:
				row.WriteRune(' ')
			case top:
				row.WriteRune('▄')
			case bottom:
				row.WriteRune('▀')
			default:
				row.WriteRune('█')
			}
		}
		text = append(text, row.String())
	}
	return svg, text, nil
}
