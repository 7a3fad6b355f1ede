package imagecap

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

func pngOf(t testing.TB, w, h int, noisy bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x), uint8(y), 128, 255}
			if noisy {
				c = color.RGBA{uint8(rng.UintN(256)), uint8(rng.UintN(256)), uint8(rng.UintN(256)), 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFit(t *testing.T) {
	small := pngOf(t, 200, 100, false)
	wide := pngOf(t, 3000, 1000, false)
	tall := pngOf(t, 500, 2500, false)
	noisy := pngOf(t, 800, 800, true)
	var jb bytes.Buffer
	_ = jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 2000, 2000)), nil)
	cases := []struct {
		name       string
		mime       string
		data       []byte
		lim        Limits
		wantMime   string
		wantW      int
		wantH      int
		same       bool   // the bytes pass through unchanged
		omitted    string // substring of the reason, when left out
		maxBytesOK bool
	}{
		{name: "small png passes through", mime: "image/png", data: small, wantMime: "image/png", wantW: 200, wantH: 100, same: true},
		{name: "wide png downscaled to the edge", mime: "image/png", data: wide, wantMime: "image/png", wantW: 1568, wantH: 522},
		{name: "tall png downscaled to the edge", mime: "image/png", data: tall, lim: Limits{MaxEdge: 1000}, wantMime: "image/png", wantW: 200, wantH: 1000},
		{name: "jpeg over the edge", mime: "image/jpeg", data: jb.Bytes(), lim: Limits{MaxEdge: 500}, wantMime: "image/png", wantW: 500, wantH: 500},
		{name: "noisy png over the byte budget becomes jpeg", mime: "image/png", data: noisy, lim: Limits{MaxBytes: 300 << 10}, wantMime: "image/jpeg", maxBytesOK: true},
		{name: "budget too small for anything", mime: "image/png", data: noisy, lim: Limits{MaxBytes: 50}, omitted: "does not fit"},
		{name: "unknown format", mime: "image/bmp", data: []byte("BM"), omitted: "not a format"},
		{name: "corrupt png", mime: "image/png", data: []byte("\x89PNG garbage"), omitted: "does not decode"},
		{name: "small webp passes through", mime: "image/webp", data: []byte("RIFF....WEBP"), wantMime: "image/webp", same: true},
		{name: "large webp left out", mime: "image/webp", data: bytes.Repeat([]byte("x"), 100), lim: Limits{MaxBytes: 10}, omitted: "webp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Fit(tc.mime, tc.data, tc.lim)
			if tc.omitted != "" {
				if got.Omitted == "" || !strings.Contains(got.Omitted, tc.omitted) || len(got.Data) != 0 {
					t.Fatalf("omitted %q with %d bytes, want a reason with %q", got.Omitted, len(got.Data), tc.omitted)
				}
				return
			}
			if got.Omitted != "" {
				t.Fatalf("left out: %s", got.Omitted)
			}
			if got.MimeType != tc.wantMime {
				t.Fatalf("mime %s, want %s", got.MimeType, tc.wantMime)
			}
			if tc.same != bytes.Equal(got.Data, tc.data) {
				t.Fatalf("bytes unchanged = %v, want %v", !tc.same, tc.same)
			}
			lim := tc.lim.WithDefaults()
			if len(got.Data) > lim.MaxBytes {
				t.Fatalf("%d bytes over the %d limit", len(got.Data), lim.MaxBytes)
			}
			if tc.wantW != 0 && (got.Width != tc.wantW || got.Height != tc.wantH) {
				t.Fatalf("size %dx%d, want %dx%d", got.Width, got.Height, tc.wantW, tc.wantH)
			}
			if tc.mime == "image/webp" {
				return
			}
			// What comes out decodes, at the size it claims.
			img, _, err := image.Decode(bytes.NewReader(got.Data))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != got.Width || b.Dy() != got.Height || max(b.Dx(), b.Dy()) > lim.MaxEdge {
				t.Fatalf("decoded %v, claimed %dx%d", b, got.Width, got.Height)
			}
		})
	}
}

// Area averaging keeps the mean colour: a half-black, half-white stripe
// pattern shrinks to grey, not to one of the two.
func TestDownscaleAverages(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			v := uint8(0)
			if x%2 == 0 {
				v = 255
			}
			img.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	out := Downscale(img, 10)
	r, _, _, _ := out.At(5, 5).RGBA()
	if g := r >> 8; g < 120 || g > 135 {
		t.Fatalf("grey %d, want about 127", g)
	}
}

func FuzzFit(f *testing.F) {
	f.Add("image/png", pngOf(f, 40, 20, false))
	f.Add("image/gif", []byte("GIF89a"))
	f.Add("image/jpeg", []byte{0xff, 0xd8, 0xff})
	f.Fuzz(func(t *testing.T, mime string, data []byte) {
		lim := Limits{MaxEdge: 32, MaxBytes: 64 << 10}
		got := Fit(mime, data, lim)
		if got.Omitted == "" && len(got.Data) > lim.MaxBytes {
			t.Fatalf("%d bytes over the limit", len(got.Data))
		}
		if got.Omitted != "" && len(got.Data) != 0 {
			t.Fatal("an omitted image carries data")
		}
	})
}
