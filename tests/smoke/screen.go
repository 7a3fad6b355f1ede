package smoke

import (
	"fmt"
	"image"
)

// Thresholds that separate a painted UI from an empty window. An unpainted
// WebKit view is one flat colour inside a black root window (2 colours);
// Warden's shell with anti-aliased text shows hundreds.
const (
	MinColours       = 64
	MaxDominantShare = 0.9
)

// Paint summarises a screenshot.
type Paint struct {
	Pixels int
	// Colours is the number of distinct RGB values.
	Colours int
	// DominantShare is the fraction of pixels in the most common colour.
	DominantShare float64
}

// Analyse counts the colours of img.
func Analyse(img image.Image) Paint {
	b := img.Bounds()
	counts := make(map[uint32]int)
	if rgba, ok := img.(*image.RGBA); ok {
		// Screenshots are *image.RGBA; reading Pix directly is ~10x faster than At.
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := rgba.Pix[rgba.PixOffset(b.Min.X, y):rgba.PixOffset(b.Max.X, y)]
			for i := 0; i+3 < len(row); i += 4 {
				counts[uint32(row[i])<<16|uint32(row[i+1])<<8|uint32(row[i+2])]++
			}
		}
	} else {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				counts[(r>>8)<<16|(g>>8)<<8|bl>>8]++
			}
		}
	}
	p := Paint{Pixels: b.Dx() * b.Dy(), Colours: len(counts)}
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	if p.Pixels > 0 {
		p.DominantShare = float64(top) / float64(p.Pixels)
	}
	return p
}

// Rendered returns nil when the picture looks like a painted UI, or says why not.
func (p Paint) Rendered() error {
	switch {
	case p.Pixels == 0:
		return fmt.Errorf("empty image")
	case p.Colours < MinColours:
		return fmt.Errorf("only %d distinct colours (want at least %d): the window looks blank", p.Colours, MinColours)
	case p.DominantShare > MaxDominantShare:
		return fmt.Errorf("one colour covers %.0f%% of the screen (want at most %.0f%%): the window looks blank",
			100*p.DominantShare, 100*MaxDominantShare)
	}
	return nil
}
