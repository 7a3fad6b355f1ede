package smoke

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return img
}

// striped has many colours but one of them covers nearly everything, like a
// window that painted only a thin border.
func striped() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			c := color.RGBA{0x20, 0x20, 0x20, 0xff}
			if y == 0 {
				c = color.RGBA{uint8(x), uint8(2 * x), 0x80, 0xff}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestRendered(t *testing.T) {
	cases := []struct {
		name    string
		img     func(t *testing.T) image.Image
		wantErr string // empty: rendered
	}{
		{
			name: "Warden shell captured under Xvfb",
			img:  func(t *testing.T) image.Image { return load(t, "rendered-window.png") },
		},
		{
			name:    "window mapped before WebKit painted (captured under Xvfb)",
			img:     func(t *testing.T) image.Image { return load(t, "unpainted-window.png") },
			wantErr: "distinct colours",
		},
		{
			name:    "all white",
			img:     func(t *testing.T) image.Image { return load(t, "white.png") },
			wantErr: "distinct colours",
		},
		{
			name:    "many colours in a sliver, one colour everywhere else",
			img:     func(*testing.T) image.Image { return striped() },
			wantErr: "one colour covers",
		},
		{
			name:    "zero-size image",
			img:     func(*testing.T) image.Image { return image.NewRGBA(image.Rect(0, 0, 0, 0)) },
			wantErr: "empty image",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Analyse(tc.img(t))
			err := p.Rendered()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Rendered() = %v, want nil (paint %+v)", err, p)
			case tc.wantErr != "" && err == nil:
				t.Errorf("Rendered() = nil, want an error containing %q (paint %+v)", tc.wantErr, p)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("Rendered() = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// generic hides the concrete type, so Analyse takes its At path.
type generic struct{ image.Image }

// Analyse must count the same on the *image.RGBA fast path as through At.
func TestAnalyseRGBAMatchesGeneric(t *testing.T) {
	for _, name := range []string{"rendered-window.png", "unpainted-window.png"} {
		t.Run(name, func(t *testing.T) {
			src := load(t, name)
			rgba := image.NewRGBA(src.Bounds())
			draw.Draw(rgba, rgba.Bounds(), src, src.Bounds().Min, draw.Src)
			if got, want := Analyse(rgba), Analyse(generic{src}); got != want {
				t.Errorf("RGBA path %+v, generic path %+v", got, want)
			}
		})
	}
}

func BenchmarkAnalyse(b *testing.B) {
	f, err := os.Open(filepath.Join("testdata", "rendered-window.png"))
	if err != nil {
		b.Fatal(err)
	}
	src, err := png.Decode(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	// The smoke test analyses screenshots, which are *image.RGBA.
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	b.ResetTimer()
	for b.Loop() {
		Analyse(img)
	}
}
