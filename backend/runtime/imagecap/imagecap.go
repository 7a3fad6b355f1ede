// Package imagecap fits the pictures tools return (browser and desktop
// screenshots) into what a model request can carry: a longest edge and a
// byte budget. A picture over the edge is downscaled (area averaging, which
// keeps small text legible better than point sampling); one still over the
// budget is re-encoded as JPEG and shrunk again; one that cannot fit, or
// is in a format models do not take, is left out with a reason.
//
// It is pure: bytes in, bytes out, no I/O.
package imagecap

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// Limits bound one picture. Zero fields take the defaults.
type Limits struct {
	// MaxEdge is the longest side in pixels (default 1568, the size past
	// which Anthropic downscales anyway).
	MaxEdge int `json:"max_edge,omitempty"`
	// MaxBytes is the encoded size (default 3.5 MiB: 5 MB once base64'd is
	// the Anthropic limit per image).
	MaxBytes int `json:"max_bytes,omitempty"`
}

// Defaults for Limits.
const (
	DefaultMaxEdge  = 1568
	DefaultMaxBytes = 3_500 << 10
)

// WithDefaults fills zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxEdge <= 0 {
		l.MaxEdge = DefaultMaxEdge
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// maxPixels refuses a decompression bomb before decoding it (8K squared).
const maxPixels = 8192 * 8192

// Image is a fitted picture, or the reason there is none (Omitted).
type Image struct {
	MimeType string
	Data     []byte
	Width    int
	Height   int
	Omitted  string
}

// Fit returns the picture within lim.
func Fit(mimeType string, data []byte, lim Limits) Image {
	lim = lim.WithDefaults()
	var (
		img image.Image
		err error
	)
	if cfg, _, cerr := image.DecodeConfig(bytes.NewReader(data)); cerr == nil && cfg.Width*cfg.Height > maxPixels {
		return Image{MimeType: mimeType, Omitted: fmt.Sprintf("a %dx%d image is too large to decode", cfg.Width, cfg.Height)}
	}
	switch mimeType {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(data))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(data))
	case "image/gif":
		img, err = gif.Decode(bytes.NewReader(data))
	case "image/webp":
		// No decoder in the standard library: pass it through when it
		// fits, since models take webp as it is.
		if len(data) <= lim.MaxBytes {
			return Image{MimeType: mimeType, Data: data}
		}
		return Image{MimeType: mimeType, Omitted: fmt.Sprintf("a %d-byte webp image is over the %d-byte limit and cannot be downscaled", len(data), lim.MaxBytes)}
	default:
		return Image{MimeType: mimeType, Omitted: fmt.Sprintf("%s is not a format models accept (png, jpeg, gif, webp)", mimeType)}
	}
	if err != nil {
		return Image{MimeType: mimeType, Omitted: fmt.Sprintf("the %s image does not decode: %v", mimeType, err)}
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return Image{MimeType: mimeType, Omitted: "the image is empty"}
	}
	if max(w, h) <= lim.MaxEdge && len(data) <= lim.MaxBytes {
		return Image{MimeType: mimeType, Data: data, Width: w, Height: h} // as it came
	}
	edge := min(max(w, h), lim.MaxEdge)
	for range 6 {
		small := Downscale(img, edge)
		sb := small.Bounds()
		var buf bytes.Buffer
		if png.Encode(&buf, small) == nil && buf.Len() <= lim.MaxBytes {
			return Image{MimeType: "image/png", Data: buf.Bytes(), Width: sb.Dx(), Height: sb.Dy()}
		}
		buf.Reset()
		if jpeg.Encode(&buf, small, &jpeg.Options{Quality: 80}) == nil && buf.Len() <= lim.MaxBytes {
			return Image{MimeType: "image/jpeg", Data: buf.Bytes(), Width: sb.Dx(), Height: sb.Dy()}
		}
		edge = edge * 3 / 4
		if edge < 16 {
			break
		}
	}
	return Image{MimeType: mimeType, Omitted: fmt.Sprintf("a %dx%d image does not fit in %d bytes even downscaled", w, h, lim.MaxBytes)}
}

// Downscale returns img with its longest side at most edge pixels, each
// output pixel the average of the source pixels it covers. An image already
// small enough is returned as it is.
func Downscale(img image.Image, edge int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if edge <= 0 || max(w, h) <= edge {
		return img
	}
	nw, nh := edge, h*edge/w
	if h > w {
		nw, nh = w*edge/h, edge
	}
	nw, nh = max(nw, 1), max(nh, 1)
	out := image.NewRGBA(image.Rect(0, 0, nw, nh))
	for y := 0; y < nh; y++ {
		y0, y1 := b.Min.Y+y*h/nh, b.Min.Y+(y+1)*h/nh
		y1 = max(y1, y0+1)
		for x := 0; x < nw; x++ {
			x0, x1 := b.Min.X+x*w/nw, b.Min.X+(x+1)*w/nw
			x1 = max(x1, x0+1)
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := img.At(sx, sy).RGBA()
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			out.SetRGBA(x, y, color.RGBA{R: uint8(r / n >> 8), G: uint8(g / n >> 8), B: uint8(bl / n >> 8), A: uint8(a / n >> 8)})
		}
	}
	return out
}
