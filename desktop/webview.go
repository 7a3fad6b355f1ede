package desktop

import (
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// gpuEnv lets a user with a GPU and a large screen opt back into WebKit's
// accelerated compositing; any other value than "1" keeps the lean default.
const gpuEnv = "WARDEN_WEBVIEW_GPU"

// lowMemoryEnv is what the webview is started with unless the user set a
// value of their own. The GPU policy Never does most of the saving: without
// accelerated compositing the web process keeps no GL compositing buffers
// (about 80 MB PSS at idle, measured with go run ./bench/cmd/desktopmem).
// With GTK's own GL off as well, the window process sets up less GL (about
// 2 MB). A chat window paints little, so painting on the CPU costs nothing
// visible.
//
// WEBKIT_DISABLE_DMABUF_RENDERER=1 would save some 4 MB more, but it leaves
// an unmapped input-only X window titled like the app, which window lookups
// by name (xdotool, the desktop smoke test) then pick instead of the real one.
var lowMemoryEnv = []struct{ key, value string }{
	{"GDK_GL", "disable"},
}

// webviewSettings decides the GPU policy and the environment to add before
// GTK and WebKit start (they read it once, at startup, and WebKit's child
// processes inherit it). lookup is os.LookupEnv outside tests.
func webviewSettings(lookup func(string) (string, bool)) (linux.WebviewGpuPolicy, map[string]string) {
	if v, _ := lookup(gpuEnv); v == "1" {
		return linux.WebviewGpuPolicyOnDemand, nil
	}
	set := map[string]string{}
	for _, e := range lowMemoryEnv {
		if _, ok := lookup(e.key); !ok {
			set[e.key] = e.value
		}
	}
	return linux.WebviewGpuPolicyNever, set
}

// ApplyWebviewSettings sets the environment webviewSettings chose and returns
// the GPU policy for the Wails options.
func ApplyWebviewSettings() (linux.WebviewGpuPolicy, error) {
	policy, env := webviewSettings(os.LookupEnv)
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return policy, fmt.Errorf("set %s: %w", k, err)
		}
	}
	return policy, nil
}
