package runtime

import (
	"fmt"

	"github.com/warden-dev/warden/backend/runtime/imagecap"
	"github.com/warden-dev/warden/backend/runtime/model"
	"github.com/warden-dev/warden/backend/store"
	"github.com/warden-dev/warden/backend/tools"
)

// ImageConfig caps the pictures the model is shown. Each picture is fitted
// to Limits when its tool result is recorded (the tool's own full-size
// result stays in ToolInvocationCompleted for the human); a request carries
// at most Keep pictures, the newest, older ones becoming a one-line note so
// a long browsing session does not resend every screenshot it took.
type ImageConfig struct {
	imagecap.Limits
	Keep int `json:"keep,omitempty"` // default 8; negative sends none
}

// DefaultKeepImages is ImageConfig.Keep's default.
const DefaultKeepImages = 8

func (c ImageConfig) withDefaults() ImageConfig {
	c.Limits = c.Limits.WithDefaults()
	if c.Keep == 0 {
		c.Keep = DefaultKeepImages
	}
	return c
}

// resultImages fits a tool result's pictures for the model.
func (s *Service) resultImages(r tools.Result) []store.Image {
	var out []store.Image
	for _, c := range r.Content {
		if c.Type != "image" {
			continue
		}
		f := imagecap.Fit(c.MimeType, c.Data, s.cfg.Images.Limits)
		out = append(out, store.Image{MimeType: f.MimeType, Data: f.Data, Width: f.Width, Height: f.Height, Omitted: f.Omitted})
	}
	return out
}

// imageParts turns stored pictures into content parts; one left out is a
// note saying why, so the model knows it missed something.
func imageParts(imgs []store.Image) []model.Part {
	var out []model.Part
	for _, im := range imgs {
		if im.Omitted != "" || len(im.Data) == 0 {
			out = append(out, model.TextPart(fmt.Sprintf("\n[an image was left out: %s]", im.Omitted)))
			continue
		}
		out = append(out, model.ImagePart(im.MimeType, im.Data))
	}
	return out
}

// keepNewestImages replaces all but the newest keep image parts of the
// conversation with a note.
func keepNewestImages(msgs []model.Message, keep int) {
	if keep < 0 {
		keep = 0
	}
	seen := 0
	thin := func(parts []model.Part) {
		for i := len(parts) - 1; i >= 0; i-- {
			if parts[i].Type != model.PartImage {
				continue
			}
			seen++
			if seen > keep {
				parts[i] = model.TextPart(fmt.Sprintf("\n[an earlier %s image, no longer shown]", parts[i].MimeType))
			}
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		for j := len(msgs[i].Results) - 1; j >= 0; j-- {
			thin(msgs[i].Results[j].Content)
		}
		thin(msgs[i].Content)
	}
}
